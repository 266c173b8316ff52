"""Extensions from installed packages: the `auger.extensions` entry-point group, cached."""

from __future__ import annotations

from pathlib import Path

from support.cli import Project, json_lines


def install(site: Path, name: str, message: str) -> None:
    """A minimal installed distribution whose entry point registers a greeting."""
    (site / f"{name}.py").write_text(
        f"def extension(g):\n    g.on('turn_start', lambda e: g.notify({message!r}))\n"
    )
    info = site / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[auger.extensions]\n{name} = {name}:extension\n")


def notices(project: Project) -> list[str]:
    result = project.run("-p", "--json", "hi")
    assert result.returncode == 0, result.stderr
    return [r["message"] for r in json_lines(result.stdout) if r["type"] == "notify"]


def test_installed_packages_are_found_and_the_cache_follows_installs(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    project = Project.make(tmp_path)
    project.script(["a", "b", "c"])
    project.env["PYTHONPATH"] = str(site)
    install(site, "greeter", "hello from a package")
    assert "hello from a package" in notices(project)
    assert (project.home / "cache" / "entry_points.json").exists()
    install(site, "second", "and from another")
    assert {"hello from a package", "and from another"} <= set(notices(project))
    assert "hello from a package" not in [
        r["message"]
        for r in json_lines(project.run("-p", "--json", "--no-extensions", "hi").stdout)
        if r["type"] == "notify"
    ]
