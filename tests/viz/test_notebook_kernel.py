"""examples/notebooks/four_bar.ipynb executed by a real Jupyter kernel (nbclient, ipykernel): its outputs
show the model's topology, the Result's summary, a PNG plot and the 3D player inline, and the player
starts in headless chromium without console errors. Skipped without nbclient or ipykernel (the test extra)."""
import base64
import html
import re
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "notebooks" / "four_bar.ipynb"


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """{cell source's first line: the cell's outputs} of the notebook executed in a kernel of this Python."""
    nbclient, nbformat = pytest.importorskip("nbclient"), pytest.importorskip("nbformat")
    kernelspec = pytest.importorskip("ipykernel.kernelspec")
    jupyter_path = tmp_path_factory.mktemp("jupyter")
    kernelspec.write_kernel_spec(jupyter_path / "kernels" / "python3")   # argv: this interpreter
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JUPYTER_PATH", str(jupyter_path))                 # found before any python3 installed
        nbclient.NotebookClient(notebook, timeout=900, kernel_name="python3",
                                resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    return {cell.source.splitlines()[-1]: cell.outputs for cell in notebook.cells if cell.cell_type == "code"}


def shown(outputs, mime):
    """The ``mime`` data of the cell's result (execute_result or display_data)."""
    [data] = [o.data[mime] for o in outputs if o.output_type in ("execute_result", "display_data") and mime in o.data]
    return data


def test_every_cell_runs_without_error(outputs):
    assert not [o for cell in outputs.values() for o in cell if o.output_type == "error"]


def test_the_model_shows_its_topology(outputs):
    page = shown(outputs["m"], "text/html")
    assert "<b>Model four-bar</b>" in page and "├─ j1 (revolute) → crank" in page and "j1 → j2 → j3 → j4" in page


def test_the_result_shows_its_summary_and_quick_plot(outputs):
    page = shown(outputs["res"], "text/html")
    assert "<b>Result of four-bar</b>" in page and "<td>samples</td><td>201</td>" in page
    assert "<td>signals</td><td>37: joints 19, bodies 18</td>" in page and "data:image/png;base64," in page


def test_res_plot_shows_a_png(outputs):
    png = base64.b64decode(shown(outputs['res.plot(["j1.q", "j1.v"])'], "image/png"))
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000


@pytest.fixture(scope="module")
def player_html(outputs):
    frame = shown(outputs["ms.animate(res)"], "text/html")
    assert frame.startswith('<iframe srcdoc="') and 'sandbox="allow-scripts"' in frame
    return frame


def test_the_player_is_the_offline_page_embedded(player_html):
    page = html.unescape(re.match(r'<iframe srcdoc="([^"]*)"', player_html).group(1))
    assert page.startswith("<!DOCTYPE html>") and 'id="mechsim-scene"' in page and "three.js" in page.lower()


@pytest.mark.browser
def test_the_inline_player_starts_in_chromium_without_errors(player_html, watched_page):
    page = watched_page(viewport={"width": 900, "height": 700})
    page.set_content(f"<!DOCTYPE html><html><body>{player_html}{player_html}</body></html>")   # two: kept apart
    players = page.frames[1:]
    assert len(players) == 2
    for player in players:
        player.wait_for_function("window.mechsim !== undefined", timeout=20000)
        assert player.evaluate("window.mechsim.frames") == 61
        assert player.evaluate("window.mechsim.bodies") == ["crank", "coupler", "rocker"]
    assert players[0].evaluate("window.mechsim.seek(0.5)") == pytest.approx(0.5)
    assert players[1].evaluate("window.mechsim.seek(1.5)") == pytest.approx(1.5)
    assert players[0].inner_text("#clock") == "t = 0.500 s / 2.000 s"
    assert page.problems == []
    page.close()
