"""Running test pipelines to EOS, for the Python tests (PyGObject).

`run` plays a description to EOS; `each_frame` hands every sample of its
'appsink name=s' to a function as it comes, holding one at a time (device
frames go back to their pool); `pull_all` keeps them all.
"""
import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402


def _end(p, desc, what):
    """Waits for EOS or an error, stops the pipeline, raises on an error."""
    msg = p.get_bus().timed_pop_filtered(
        60 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    assert msg is not None, f"{desc}: no EOS in 60 s ({what})"
    if msg.type == Gst.MessageType.ERROR:
        err, dbg = msg.parse_error()
        raise AssertionError(f"{err.message} | {dbg}")


def run(desc):
    """Plays desc to EOS; raises AssertionError with the error's text."""
    p = Gst.parse_launch(desc)
    p.set_state(Gst.State.PLAYING)
    _end(p, desc, "no frames pulled")


def each_frame(desc, fn, timeout_s=20):
    """Plays desc, which ends in 'appsink name=s', calling fn(sample) for
    each frame as it comes; returns the number of frames. The pipeline
    posts EOS a moment after the last pull, so that is waited for too."""
    p = Gst.parse_launch(desc)
    sink = p.get_by_name("s")
    p.set_state(Gst.State.PLAYING)
    n = 0
    while True:
        s = sink.emit("try-pull-sample", timeout_s * Gst.SECOND)
        if s is None:
            break
        fn(s)
        n += 1
    _end(p, desc, f"stopped after {n} frames")
    return n


def pull_all(desc):
    """The samples of every frame of desc (ending in 'appsink name=s')."""
    samples = []
    each_frame(desc, samples.append, timeout_s=10)
    return samples
