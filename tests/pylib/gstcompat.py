"""Differences between the gst-python versions the tests run on, in one place.

GStreamer 1.26's Python overrides return a context-manager wrapper from
Gst.Caps.get_structure() (use it in a `with` block to get the Gst.Structure);
1.22 and 1.24 return the Gst.Structure itself.
"""


def caps_structure(caps, index=0):
    """The Gst.Structure at `index` of `caps`, on every gst-python version.

    The structure belongs to `caps`: keep `caps` alive while using it, and
    do not change it.
    """
    s = caps.get_structure(index)
    if hasattr(s, "get_name"):
        return s
    with s as structure:
        return structure
