"""Read models of the spectator pages: the JSON documents and HTML regions built once per
tournament version from :mod:`live.selectors`, and the live table card."""
