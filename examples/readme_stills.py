"""The README's stills: the four-bar's and the Stewart platform's animation pages (written by their
example scripts) photographed in Debian's headless chromium through Playwright, saved as small
PNGs in examples/images/. Needs ``pip install playwright`` and ``apt-get install chromium`` (no
browser download). Run: ``python examples/readme_stills.py``."""
import importlib.util
import io
import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
STILLS = {"four_bar": 2.5, "stewart_platform": 0.5}      # example -> time of the still (s)


def run_example(name, out):
    """examples/<name>.py's main(), its outputs (the page <name>.html among them) in ``out``."""
    os.environ["MECHSIM_EXAMPLE_OUT"] = str(out)
    sys.path.insert(0, str(HERE))
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main()
    return out / f"{name}.html"


def photograph(browser, page_path, time, target):
    from PIL import Image
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.goto(page_path.as_uri())
    page.wait_for_function("window.mechsim !== undefined")
    page.evaluate(f"window.mechsim.seek({time})")
    shot = Image.open(io.BytesIO(page.screenshot())).convert("RGB")
    shot.quantize(colors=128).save(target, optimize=True)          # small enough to commit
    print(f"wrote {target} ({target.stat().st_size // 1024} kB)")
    page.close()


def main():
    from playwright.sync_api import sync_playwright
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        sys.exit("needs Debian's chromium: apt-get install chromium")
    (HERE / "images").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as out, sync_playwright() as playwright:
        pages = {name: run_example(name, Path(out)) for name in STILLS}
        browser = playwright.chromium.launch(executable_path=chromium, args=["--enable-unsafe-swiftshader"])
        for name, time in STILLS.items():
            photograph(browser, pages[name], time, HERE / "images" / f"{name}.png")
        browser.close()


if __name__ == "__main__":
    main()
