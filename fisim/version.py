"""fisim's version: in every store's manifest, every report and the compile cache's key. Its own
module, at the ground floor, so that the layers that record it need not import the package's face."""
VERSION = "0.1.0"
