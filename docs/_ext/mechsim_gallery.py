"""The example gallery: one page per example script of examples/, written when the build starts.

Nothing is run: each page shows what examples/README.md's tables say of the example (what it shows,
how to run it), the images committed beside the examples (any ``.png``/``.svg``/``.jpg``/``.gif`` under
examples/, outside ``out/``, whose name is the example's or starts with it followed by ``_`` or ``-``,
a longer example name winning: ``slider_crank_free.png`` goes to ``slider_crank_free`` where that
example exists), its committed animations (``.gif``, ``.mp4``, and ``.html`` pages shown in a frame), the
script and its model files. So a new plot committed under examples/ appears on its page on the next
build, with no change here.

Pages are written to docs/gallery/ (generated, not committed): ``index.md`` (a card per example,
grouped as the README groups them) and ``<example>.md``; animations are copied to
``_animations/`` of the HTML output when the build ends.
"""
import os
import re
import shutil
from pathlib import Path

IMAGE_SUFFIXES = (".png", ".svg", ".jpg", ".jpeg", ".gif")    # .gif: shown as an animation
ANIMATION_SUFFIXES = (".html", ".mp4")
SKIPPED_DIRS = {"out", "reference", "__pycache__"}
NOT_EXAMPLES = {"readme_stills"}          # a tool (photographs pages for the README), not an example
ANIMATIONS = "_animations"
CODE_SPAN = re.compile(r"`([^`]+)`")
SCRIPT = re.compile(r"python3? examples/(\S+?)\.py")
MODEL_FILE = re.compile(r"examples/(\S+?\.ya?ml)")


def example_scripts(examples):
    """{name: script path} of every example script: examples/*.py and examples/<dir>/*.py, less the
    helpers (a leading underscore) and tools."""
    found = {}
    for path in sorted(examples.rglob("*.py")):
        relative = path.relative_to(examples)
        if path.name.startswith("_") or set(relative.parts[:-1]) & SKIPPED_DIRS:
            continue
        name = relative.with_suffix("").as_posix()
        if name not in NOT_EXAMPLES:
            found[name] = path
    return found


def readme_sections(readme):
    """[(section title, [table rows as (first cell, what, run)], other text)] of examples/README.md."""
    sections, title, rows, text = [], None, [], []
    for line in readme.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            sections.append((title, rows, text))
            title, rows, text = line[3:].strip(), [], []
        elif line.startswith("| `"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            if len(cells) >= 3:
                rows.append((cells[0], cells[1], cells[-1]))
        elif line.startswith("|"):
            continue                      # a header or rule row
        elif title is not None:
            text.append(line)
    sections.append((title, rows, text))
    return sections


def row_example(row, scripts):
    """The example a README row belongs to: the first script its run cell names, else the script its
    first cell names (``cosim/four_bar.yaml`` -> ``cosim/study``), else None."""
    first, _, run = row
    for script in SCRIPT.findall(run):
        if script in scripts:
            return script
    for span in CODE_SPAN.findall(first):
        stem = span.split()[0].rsplit(".", 1)[0]
        if stem in scripts:
            return stem
        folder = stem.split("/")[0]
        studies = [s for s in scripts if s.startswith(folder + "/")]
        if studies:
            return studies[0]
    return None


def media(examples, names):
    """{example name: [paths]} of the committed images and animations, each given to the longest
    example name it starts with."""
    found = {name: [] for name in names}
    by_length = sorted(names, key=len, reverse=True)
    for dirpath, dirnames, filenames in os.walk(examples):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS)
        for filename in sorted(filenames):
            path = Path(dirpath) / filename
            if path.suffix.lower() not in IMAGE_SUFFIXES + ANIMATION_SUFFIXES:
                continue
            for name in by_length:
                base = name.rsplit("/", 1)[-1]
                stem = path.stem
                if stem == base or stem.startswith((base + "_", base + "-")):
                    if "/" not in name or path.parent.name == name.split("/")[0]:
                        found[name].append(path)
                        break
    return found


def relative(path, start):
    return Path(os.path.relpath(path, start)).as_posix()


def example_page(name, script, rows, files, gallery, examples):
    """The Markdown of one example's page."""
    lines = [f"# {name}", ""]
    if rows:
        for first, what, run in rows:
            label = first.replace("`", "")
            if label != name:
                lines += [f"## `{label}`" if "," not in label else f"## {first}", ""]
            lines += [what.replace("<br>", " "), ""]
            commands = [c for c in CODE_SPAN.findall(run)]
            if commands:
                lines += ["```bash", *commands, "```", ""]
    else:
        docstring = script.read_text(encoding="utf-8").split('"""')
        if len(docstring) > 2:
            lines += ["```text", docstring[1].strip(), "```", ""]
        lines += ["```bash", f"python examples/{name}.py", "```", ""]
    images = [p for p in files if p.suffix.lower() in IMAGE_SUFFIXES and p.suffix.lower() != ".gif"]
    animations = [p for p in files if p.suffix.lower() in ANIMATION_SUFFIXES + (".gif",)]
    if images:
        lines += ["## Figures", ""]
        for path in images:
            lines += [f"```{{image}} {relative(path, gallery)}", f":alt: {path.name}, from examples/{name}.py",
                      ":width: 100%", "```", ""]
    if animations:
        lines += ["## Animation", ""]
        for path in animations:
            target = f"../{ANIMATIONS}/{path.name}"
            if path.suffix.lower() == ".gif":
                lines += [f"```{{image}} {relative(path, gallery)}", f":alt: {path.name}, from examples/{name}.py",
                          ":width: 100%", "```", ""]
            elif path.suffix.lower() == ".html":
                lines += ["```{raw} html",
                          f'<iframe src="{target}" style="width:100%;height:480px;border:0" '
                          f'title="{path.name}" loading="lazy"></iframe>',
                          f'<p><a href="{target}">{path.name}</a>: the animation page on its own</p>', "```", ""]
            else:
                lines += ["```{raw} html", f'<video src="{target}" controls loop style="width:100%"></video>',
                          "```", ""]
    lines += ["## Script", "", f"```{{literalinclude}} {relative(script, gallery)}", ":language: python",
              "```", ""]
    model_files = []
    for _, _, run in rows:
        model_files += [m for m in MODEL_FILE.findall(run) if m not in model_files]
    own = script.with_suffix(".yaml")
    if own.is_file() and own.relative_to(examples).as_posix() not in model_files:
        model_files.insert(0, own.relative_to(examples).as_posix())
    if "/" in name:                   # a study's folder: its model files too
        folder = examples / name.split("/")[0]
        model_files += [p.relative_to(examples).as_posix() for p in sorted(folder.glob("*.yaml"))
                        if p.relative_to(examples).as_posix() not in model_files]
    for model in model_files:
        if (examples / model).is_file():
            lines += [f"## Model file `examples/{model}`", "",
                      f"```{{literalinclude}} {relative(examples / model, gallery)}", ":language: yaml", "```", ""]
    return "\n".join(lines)


def card(name, files, gallery):
    """A card of the gallery's index: the example's first image, linked to its page, and its name."""
    images = [p for p in files if p.suffix.lower() in IMAGE_SUFFIXES]
    page = name.replace("/", "-")
    if images:
        return [f"```{{figure}} {relative(images[0], gallery)}", f":target: {page}.html", f":alt: {name}",
                ":figclass: mechsim-card", "", f"[{name}]({page}.md)", "```", ""]
    return [":::{container} mechsim-card mechsim-card-text", f"[{name}]({page}.md)", ":::", ""]


def write_gallery(app, config):
    examples = Path(config.mechsim_examples_dir)
    gallery = Path(app.srcdir) / "gallery"
    gallery.mkdir(exist_ok=True)
    scripts = example_scripts(examples)
    sections = readme_sections(examples / "README.md")
    rows = {name: [] for name in scripts}
    grouped = []                      # [(title, [names])]
    for title, section_rows, _ in sections:
        names = []
        for row in section_rows:
            name = row_example(row, scripts)
            if name is not None:
                rows[name].append(row)
                if name not in names and not any(name in n for _, n in grouped):
                    names.append(name)
        if names:
            grouped.append((title or "Examples", names))
    placed = {n for _, names in grouped for n in names}
    if set(scripts) - placed:
        grouped.append(("More examples", sorted(set(scripts) - placed)))
    found = media(examples, list(scripts))
    app.mechsim_animations = [p for files in found.values() for p in files
                              if p.suffix.lower() in ANIMATION_SUFFIXES]

    written = set()
    for name, script in scripts.items():
        page = gallery / (name.replace("/", "-") + ".md")
        write_if_changed(page, example_page(name, script, rows[name], found[name], gallery, examples))
        written.add(page.name)
    index = ["# Example gallery", "",
             "Runnable models from the literature, each a model file and a Python script that builds the "
             "same model through the API (`examples/` in the repository; its README tells how to run "
             "them). Every page shows the figures committed beside the example, and its animation where "
             "one is committed; the scripts write theirs to `examples/out/` when run.", ""]
    for title, names in grouped:
        index += [f"## {title}", ""]
        for name in names:
            index += card(name, found[name], gallery)
        index += ["```{toctree}", ":hidden:", "", *[n.replace("/", "-") for n in names], "```", ""]
    for title, section_rows, text in sections:
        if title and not section_rows and any(t.strip() for t in text):
            index += [f"## {title}", "", *text, ""]
    write_if_changed(gallery / "index.md", "\n".join(index))
    written.add("index.md")
    for stale in gallery.glob("*.md"):
        if stale.name not in written:
            stale.unlink()


def write_if_changed(path, text):
    """Write only what changed, so that an incremental build rereads only those pages."""
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def copy_animations(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / ANIMATIONS
    for path in getattr(app, "mechsim_animations", []):
        target.mkdir(exist_ok=True)
        shutil.copy2(path, target / path.name)


def setup(app):
    app.add_config_value("mechsim_examples_dir", "examples", "env")
    app.connect("config-inited", write_gallery)
    app.connect("build-finished", copy_animations)
    app.add_css_file("mechsim_gallery.css")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
