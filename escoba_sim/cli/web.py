"""The ``serve`` command: the page to play and learn on (``escoba_sim.web``), run on this machine."""

from __future__ import annotations

import click

from ..errors import EscobaError
from ..i18n import translate as _
from .errors import fail
from .options import SAMPLES, echo_fitted, out_option


@click.command(help=_("""Play and learn Escoba in the browser: a game against any built-in strategy
(cards drawn, captures by click, blows under tradicional, take-back, hints
by the evaluator), the analysis of a finished or uploaded hand, and every hand
saved as a hand record. The page is in English and Spanish (the browser's
language, with a switch). Stop it with Ctrl-C.

\b
Examples:
  escoba-sim serve --open                # http://127.0.0.1:8015/
  escoba-sim serve --port 9000 --out my-hands"""))
@click.option("--port", "-p", type=click.IntRange(1, 65535), default=8015, show_default=True,
              help=_("Port to listen on."))
@click.option("--host", default="127.0.0.1", show_default=True,
              help=_("Address to listen on; the default answers this machine only (0.0.0.0: every network, "
                     "with --allow-host)."))
@click.option("--allow-host", "allow_hosts", multiple=True, metavar=_("NAME"),
              help=_("A name the page answers when --host is not this machine's loopback (repeat it for each "
                     "name people type; '*' answers any name: see docs/security.md)."))
@click.option("--open", "open_browser", is_flag=True, help=_("Open the page in the default browser."))
@out_option(_("Folder for the hand records of the page's games (one JSON file per hand)."), default="escoba-play",
            show_default=True)
@click.option("--samples", type=SAMPLES, default=None,
              help=_("Deals of the unseen cards per hint and per analysed decision (default: the evaluator's, 4000)."))
def serve(port, host, allow_hosts, open_browser, out, samples):
    # the help text is the command's (above), translated
    try:
        from ..web import app
    except ImportError as e:
        fail(_("serve needs the web extra: pip install \"escoba-sim[web]\" ({module} is missing)").format(
            module=(e.name or "?").split(".")[0]))
    from ..hands.evaluate import DEFAULT_SAMPLES
    from .hands import check_out_folder

    check_out_folder(out)

    def ready(url: str, open_to_any: bool) -> None:
        echo_fitted(_("escoba-sim page at {url} (hand records in {out}/; Ctrl-C stops it)").format(url=url, out=out),
                    err=True)
        if open_to_any:
            echo_fitted(_("Warning: the page answers any host name (--allow-host '*'): a page of another site can "
                          "reach it through DNS rebinding; name the hosts instead to close that"), err=True)

    def no_browser(url: str) -> None:
        echo_fitted(_("--open: no browser could be opened here; open {url} in one").format(url=url), err=True)

    try:
        app.serve(host, port, out, open_browser=open_browser, samples=samples or DEFAULT_SAMPLES, on_ready=ready,
                  allow_hosts=list(allow_hosts), on_no_browser=no_browser)
    except EscobaError as e:
        fail(e)
    except OSError as e:
        fail(_("cannot listen on {host}:{port} ({reason})").format(host=host, port=port, reason=e.strerror or e))
    except KeyboardInterrupt:
        pass
