"""The load cell: scale service, event detector, calibration, monitor and trace tools."""
