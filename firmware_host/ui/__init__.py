"""The screens of the device: menus, the game screen, dialogs."""
