"""The docs site from a copy of the repository alone (nothing beside it, as a user's clone):
it builds strictly, and every link in it leads to a page or file of the site, or to the web."""

from __future__ import annotations

import html.parser
import os
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
MKDOCS = Path(sys.executable).with_name("mkdocs")


def _project_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split("\n")
    return [name for name in listed if name and (ROOT / name).is_file()]


class _Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key in ("href", "src") and value:
                self.links.append(value)


@pytest.mark.skipif(not MKDOCS.exists(), reason="mkdocs is not installed (the dev extra)")
def test_the_docs_build_from_the_repository_alone_and_every_link_resolves(tmp_path):
    clone = tmp_path / "alone" / "braincards"  # nothing beside it (no shared rules folder)
    for name in _project_files():
        (clone / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, clone / name)
    assert not (clone.parent / "shared").exists()
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run([str(MKDOCS), "build", "--strict", "-q", "-d", str(site)], cwd=clone, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    broken = []
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 20
    for page in pages:
        parser = _Links()
        parser.feed(page.read_text(errors="replace"))
        for link in parser.links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith(("#", "//", "mailto:", "data:")):
                continue
            base = site if parts.path.startswith("/") else page.parent  # 404.html links from the site's root
            target = (base / unquote(parts.path).lstrip("/")).resolve()
            if parts.path.endswith("/") or target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(site)} -> {link}")
            elif site.resolve() not in target.parents and target != site.resolve():
                broken.append(f"{page.relative_to(site)} -> {link} (outside the site)")
    assert not broken, "\n".join(broken[:30])
