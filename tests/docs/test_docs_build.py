"""The documentation site (docs/, issue 47) builds with no warning, as CI builds it.

The build is ``python -m sphinx -W --keep-going -E -b html docs <tmp>``, run once for the module (about
10-20 s: autodoc imports mechsim, which compiles no kernel); skipped without the ``docs`` extra
(``pip install -e ".[docs]"``). The tests then check what the site must show: an API page for every
name ``mechsim`` exports, a gallery page for every example script with every image committed under
examples/images/, the references, and the README's quickstart, which the README keeps and CI runs.
"""
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 600        # s; the build takes 10-20 s on 2 cores


def _have_docs_extra():
    try:
        import furo  # noqa: F401
        import myst_parser  # noqa: F401
        import sphinx  # noqa: F401
    except ImportError:
        return False
    return True


needs_sphinx = pytest.mark.skipif(not _have_docs_extra(), reason='the docs extra is not installed: pip install -e ".[docs]"')


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(completed process, html folder) of one full build, warnings as errors."""
    out = tmp_path_factory.mktemp("docs")
    html = out / "html"
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-E", "-q", "-b", "html",
                           "-d", str(out / "doctrees"), str(ROOT / "docs"), str(html)],
                          cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT)
    return done, html


@needs_sphinx
def test_the_docs_build_without_a_warning(built):
    done, html = built
    problems = [line for line in done.stderr.splitlines() if "WARNING" in line or "ERROR" in line]
    assert done.returncode == 0 and not problems, "\n".join(problems) or done.stderr[-3000:]
    assert (html / "index.html").is_file()


@needs_sphinx
def test_every_exported_name_has_an_api_page(built):
    import mechsim
    _, html = built
    missing = [name for name in mechsim.__all__ if not (html / "api" / "generated" / f"mechsim.{name}.html").is_file()]
    assert not missing, f"docs/api/index.rst lists no page for {missing}"
    model = (html / "api" / "generated" / "mechsim.Model.html").read_text(encoding="utf-8")
    for method in ("add_body", "add_joint", "simulate", "linearize", "trim"):
        assert f'id="mechsim.Model.{method}"' in model


@needs_sphinx
def test_the_gallery_has_every_example_and_its_committed_images(built):
    _, html = built
    gallery = html / "gallery"
    scripts = [p for p in (ROOT / "examples").glob("*.py") if not p.name.startswith("_") and p.stem != "readme_stills"]
    assert len(scripts) > 20
    for script in scripts:
        page = gallery / f"{script.stem}.html"
        assert page.is_file(), f"no gallery page for {script.name}"
    images = sorted((ROOT / "examples" / "images").glob("*.png"))
    assert images
    pages = "\n".join(p.read_text(encoding="utf-8") for p in gallery.glob("*.html"))
    for image in images:
        assert (html / "_images" / image.name).is_file() and image.name in pages, f"{image.name} is in no gallery page"


@needs_sphinx
def test_the_references_cite_the_papers(built):
    _, html = built
    text = re.sub(r"<[^>]+>", "", (html / "references.html").read_text(encoding="utf-8"))
    for cited in ("Wood, G. D. &amp; Kennedy, D. C. (2003)", "Del Citto, F., Pennestrì, E. &amp; Vita, L. (2005)",
                  "Schlotter, M. (2003)", "Gillespie, R. B., Patoglu, V., Hussein, I. I. &amp; Westervelt, E. R. (2005)",
                  "Khan, W. A., Tang, C. P. &amp; Krovi, V. N. (2006)", "Featherstone, R. (2008)"):
        assert cited in text, cited


def test_the_readme_keeps_the_quickstart_that_ci_runs():
    """The README's Quickstart is its two commands, run verbatim by .ci/run, and the README points to docs/."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quickstart = readme.split("## Quickstart\n", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.*?)\n```", quickstart, flags=re.S)
    assert len(commands) == 2 and all(c.startswith("python3 -m venv .venv && ") for c in commands)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for command in commands:
        assert command in ci
    assert "docs/" in readme.split("\n## Quickstart\n", 1)[1]


def test_the_gallery_takes_each_committed_image_to_its_example(tmp_path):
    """docs/_ext/mechsim_gallery.py: an image goes to the longest example name it starts with; out/ is skipped."""
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        import mechsim_gallery
    finally:
        sys.path.remove(str(ROOT / "docs" / "_ext"))
    for name in ("slider_crank.py", "slider_crank_free.py", "_figures.py", "cosim/study.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text('"""An example."""\n')
    for name in ("images/slider_crank.png", "images/slider_crank_free.png", "plots/slider_crank_torque.svg",
                 "images/slider_crank.html", "out/slider_crank.png", "cosim/study_errors.png", "images/other.png"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"x")
    scripts = mechsim_gallery.example_scripts(tmp_path)
    assert sorted(scripts) == ["cosim/study", "slider_crank", "slider_crank_free"]
    found = {name: sorted(p.relative_to(tmp_path).as_posix() for p in paths)
             for name, paths in mechsim_gallery.media(tmp_path, list(scripts)).items()}
    assert found == {"slider_crank": ["images/slider_crank.html", "images/slider_crank.png", "plots/slider_crank_torque.svg"],
                     "slider_crank_free": ["images/slider_crank_free.png"], "cosim/study": ["cosim/study_errors.png"]}
