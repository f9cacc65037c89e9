"""The one exception type the command line turns into a one-line message instead of a traceback."""


class AttnReproError(Exception):
    """A user-facing error: bad config, bad or missing file. The message names the culprit."""
