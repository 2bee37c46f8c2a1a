"""The self-contained HTML report: the Jinja2 template shipped with the package, figures embedded
(base64 PNG or inline SVG), no external resource, so the file opens offline anywhere."""
import base64
import re
from importlib import resources

import jinja2
from markupsafe import Markup

from fisim.reporting.markdown import sources
from fisim.version import VERSION


def template():
    text = resources.files("fisim.reporting").joinpath("templates", "report.html.j2").read_text(encoding="utf-8")
    env = jinja2.Environment(autoescape=True, trim_blocks=False, lstrip_blocks=False,
                             undefined=jinja2.StrictUndefined)
    return env.from_string(text)


def embed(kind, payload, size):
    """An image for the template: kind 'png' (bytes) or 'svg' (bytes of an SVG document)."""
    if kind == "png":
        return {"kind": "png", "data": base64.b64encode(payload).decode("ascii"), "width": size[0],
                "height": size[1]}
    svg = payload.decode("utf-8")
    svg = svg[svg.index("<svg"):]                         # drop the XML prolog and doctype
    svg = re.sub(r"<metadata>.*?</metadata>", "", svg, flags=re.S)
    return {"kind": "svg", "data": Markup(svg)}


def render(report, images):
    """The HTML text of a Report; `images` maps section id -> embed(...)."""
    return template().render(report=report, images=images, version=VERSION, sources=sources(report))
