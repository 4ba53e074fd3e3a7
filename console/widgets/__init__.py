"""The console's widgets, one module per feature of the screen."""
