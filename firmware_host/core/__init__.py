"""The runtime core: journal, store, session, replay and configuration."""
