"""The seed rulebooks and their manifest, shipped with the package."""
