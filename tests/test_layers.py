"""The layers of DESIGN.md hold: no module imports a layer above its own, the hosts use only
the public API, and below the hosts nothing prints or reads the process environment (but the
Runtime's documented default)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "auger"

LAYERS = [
    ("auger.llm", "auger._version", "auger._lazy"),
    ("auger.tools", "auger.session", "auger.config", "auger.records", "auger.events", "auger.host"),
    ("auger.sessions",),
    ("auger.bus",),
    ("auger.engine",),
    ("auger.extensions", "auger.commands"),
    ("auger.runtime", "auger.sync"),
    ("auger.loader", "auger.batch"),
    ("auger.hosts", "auger.cli", "auger.__main__", "auger"),
]
HOSTS = 8
PUBLIC = {
    *("auger", "auger._version", "auger.runtime", "auger.loader", "auger.sessions"),
    *("auger.records", "auger.events", "auger.host", "auger.batch"),
    *("auger.config", "auger.llm", "auger.commands"),  # their packages' lazy public names
}
"""What a host may import besides the other hosts: the public API, the one an embedder has."""
ENV_DEFAULT = {"auger/runtime.py"}  # `env=None` means the process environment, by design
ENVIRONMENT = {"os.environ", "os.environb", "os.getenv", "os.getenvb"}
STREAMS = {
    *("sys.stdin", "sys.stdout", "sys.stderr"),
    *("sys.__stdin__", "sys.__stdout__", "sys.__stderr__"),
}


def layer_of(module: str) -> int:
    best = (-1, -1)
    for level, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if module == prefix or module.startswith(prefix + "."):
                best = max(best, (len(prefix), level))
    assert best[1] >= 0, f"{module} is in no layer"
    return best[1]


def modules() -> list[tuple[str, Path, ast.Module]]:
    out = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC.parent)
        name = ".".join(rel.with_suffix("").parts).removesuffix(".__init__")
        out.append((name, path, ast.parse(path.read_text())))
    return out


def imports(tree: ast.Module) -> list[str]:
    """Every imported auger module, type-only imports included."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
    return [m for m in found if m == "auger" or m.startswith("auger.")]


def library_nodes(tree: ast.Module) -> list[ast.AST]:
    """Every node but those under `if __name__ == "__main__":` (a child process's own program)."""
    main = [
        node
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "__name__ == '__main__'"
    ]
    inside = {id(n) for block in main for n in ast.walk(block)}
    return [node for node in ast.walk(tree) if id(node) not in inside]


def test_no_module_imports_a_layer_above_it() -> None:
    problems = []
    for name, _, tree in modules():
        own = layer_of(name)
        for imported in imports(tree):
            if layer_of(imported) > own:
                problems.append(f"{name} (layer {own}) imports {imported}")
    assert problems == []


def test_the_hosts_import_only_the_public_api() -> None:
    problems = []
    for name, _, tree in modules():
        if layer_of(name) < HOSTS or name == "auger":
            continue
        for imported in imports(tree):
            if imported not in PUBLIC and layer_of(imported) < HOSTS:
                problems.append(f"{name} imports {imported}")
    assert problems == []


def test_the_public_packages_name_only_what_exists() -> None:
    import importlib

    for package in sorted(PUBLIC):
        module = importlib.import_module(package)
        for public in getattr(module, "__all__", ()):
            assert getattr(module, public) is not None, f"{package}.{public}"


def test_below_the_hosts_nothing_prints_or_reads_the_environment() -> None:
    problems = []
    for name, path, tree in modules():
        if layer_of(name) >= HOSTS:
            continue
        rel = str(path.relative_to(SRC.parent))
        for node in library_nodes(tree):
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "print":
                problems.append(f"{rel}:{node.lineno} prints")
            if isinstance(node, ast.ImportFrom) and node.module in ("os", "sys"):
                for alias in node.names:
                    if f"{node.module}.{alias.name}" in ENVIRONMENT | STREAMS:
                        problems.append(f"{rel}:{node.lineno} imports {node.module}.{alias.name}")
            text = ast.unparse(node) if isinstance(node, ast.Attribute) else ""
            if text in STREAMS or (text in ENVIRONMENT and rel not in ENV_DEFAULT):
                problems.append(f"{rel}:{node.lineno} reads {text}")
    assert problems == []
