"""`escoba-sim serve`: its help, and a port it cannot take or an --out that is a file as one line and exit 1."""

import socket
import subprocess
import sys

import pytest
from helpers import REPO

pytest.importorskip("uvicorn")


def test_help_names_the_options_and_the_default_address(cli):
    r = cli("serve", "--help")
    assert r.exit_code == 0
    for word in ("--port", "--host", "--open", "--out", "127.0.0.1", "escoba-sim serve --open"):
        assert word in r.output


def test_a_busy_port_is_one_line_and_exit_1(cli, tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = cli("serve", "--port", port, "--out", tmp_path / "hands")
    assert r.exit_code == 1
    assert r.output.strip() == f"Error: cannot listen on 127.0.0.1:{port} (Address already in use)"


def test_an_out_that_is_a_file_is_refused_before_listening(cli, tmp_path):
    (tmp_path / "f").write_text("x")
    r = cli("serve", "--port", 1, "--out", tmp_path / "f")
    assert r.exit_code != 0 and "is a file" in r.output and "Traceback" not in r.output


def test_without_the_web_extra_serve_says_what_to_install():
    code = ("import sys; sys.modules['starlette'] = None; sys.argv = ['escoba-sim', 'serve']; "
            "from escoba_sim.cli import main; main()")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert r.returncode == 1
    assert r.stderr.strip() == 'Error: serve needs the web extra: pip install "escoba-sim[web]" (starlette is missing)'


def test_open_without_a_browser_says_where_the_page_is(cli, tmp_path, monkeypatch):
    # issue 38: `serve --open` on a machine with no browser printed nothing
    import webbrowser

    from escoba_sim.web import app

    told = []
    monkeypatch.setattr(webbrowser, "open", lambda url: False)
    assert app.open_in_browser("http://127.0.0.1:8015/", told.append) is False and told == ["http://127.0.0.1:8015/"]

    def failing(url):
        raise webbrowser.Error("could not locate runnable browser")

    monkeypatch.setattr(webbrowser, "open", failing)
    assert app.open_in_browser("http://x/", told.append) is False and told[-1] == "http://x/"
    monkeypatch.setattr(webbrowser, "open", lambda url: True)
    assert app.open_in_browser("http://y/", told.append) is True and told[-1] == "http://x/"

    # the command says it in one line: serve's own callback, called as the library calls it
    monkeypatch.setattr(app, "serve", lambda *a, on_no_browser, **k: on_no_browser("http://127.0.0.1:8015/"))
    r = cli("serve", "--open", "--out", tmp_path / "hands")
    assert r.exit_code == 0
    assert "--open: no browser could be opened here; open http://127.0.0.1:8015/ in one" in r.output


@pytest.mark.parametrize("lang", ["en", "es"])
def test_what_serve_says_as_it_starts_fits_80_columns(cli, tmp_path, monkeypatch, lang):
    # issue 38: the line naming the address was 94 columns (99 in Spanish), the --allow-host '*' warning 156
    from escoba_sim.web import app

    def serve(*a, on_ready, on_no_browser, **k):
        on_ready("http://127.0.0.1:8015/", True)
        on_no_browser("http://127.0.0.1:8015/")

    monkeypatch.setattr(app, "serve", serve)
    monkeypatch.setenv("COLUMNS", "80")
    r = cli("serve", "--open", "--out", tmp_path / "hands", lang=lang)
    assert r.exit_code == 0
    lines = r.output.splitlines()
    assert len(lines) > 3 and max(len(line) for line in lines) <= 80, r.output
    assert r.output.count("http://127.0.0.1:8015/") == 2  # the address whole, never split
