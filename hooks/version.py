"""The one place the version lives (packaging reads it too)."""
VERSION = "0.1.0"
