"""The one place lens.notebook reaches IPython (an optional extra: lens[notebook])."""


def display(obj):
    """IPython's display(obj), or an ImportError saying which extra to install."""
    try:
        from IPython.display import display as ipython_display
    except ModuleNotFoundError as err:
        raise ImportError("lens.notebook needs IPython: pip install 'lens[notebook]' "
                          "(ipython and ipykernel)") from err
    ipython_display(obj)


class Html:
    """An object that displays as the given HTML (IPython.display.HTML without its import)."""

    def __init__(self, html, text="lens output"):
        self.html = html
        self.text = text

    def _repr_html_(self):
        return self.html

    def __repr__(self):
        return self.text
