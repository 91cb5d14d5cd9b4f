"""Ab in die Tonne (Abacusspiele 2013): stack rubbish on a bin without letting any fall."""
