// Where gi-docgen links types of other namespaces (docs/api/GstAvhw.toml.in)
baseURLs = [
  [ 'GLib', 'https://docs.gtk.org/glib/' ],
  [ 'GObject', 'https://docs.gtk.org/gobject/' ],
  [ 'Gio', 'https://docs.gtk.org/gio/' ],
  [ 'GModule', 'https://docs.gtk.org/gmodule/' ],
  [ 'Gst', 'https://gstreamer.freedesktop.org/documentation/gstreamer/' ],
  [ 'GstBase', 'https://gstreamer.freedesktop.org/documentation/base/' ],
  [ 'GstVideo', 'https://gstreamer.freedesktop.org/documentation/video/' ],
]
