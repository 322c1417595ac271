"""Static checks of the deployment files, for a machine without a Docker engine.

Dockerfile, .dockerignore, docker-compose.yml (and the Postgres init scripts it mounts),
docs/observability/prometheus.yml and docs/observability/grafana-dashboard.json are read
and checked against each other and against the sources: the Swift image against
Package.swift, COPY sources against the repository and .dockerignore, the runtime packages
against the C libraries the module maps link, the dashboard's PromQL against the metric
names the server renders. Run through Tests/deploy/run (venv with pyyaml and pytest, and
Debian's shellcheck).
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
DASHBOARD = ROOT / "docs" / "observability" / "grafana-dashboard.json"
PROMETHEUS = ROOT / "docs" / "observability" / "prometheus.yml"
OBSERVABILITY_GUIDE = ROOT / "docs" / "OBSERVABILITY.md"
METRIC_SOURCES = ROOT / "Sources" / "DuelServer"
HTTP_SOURCES = METRIC_SOURCES / "HTTP"

# swift-log 1.16.2 declares swift-tools-version 6.2: the package needs at least that toolchain
# whatever its own manifest says (checked against .build/checkouts too when it exists).
DEPENDENCIES_NEED_SWIFT = (6, 2)

# The process metrics the server adds to /metrics (Prometheus' standard names) and its
# build info; the dashboard uses them, so they must be rendered somewhere in the sources.
PROCESS_METRICS = [
    "process_resident_memory_bytes",
    "process_cpu_seconds_total",
    "process_open_fds",
    "process_max_fds",
    "process_start_time_seconds",
    "quizduel_build_info",
]

# Gauges read from the shared database: every instance reports the same value.
CLUSTER_GAUGES = ["quizduel_live_duels", "quizduel_queue_length"]

# The C libraries the module maps link, and the Debian bookworm package that ships each
# shared object (libwebsockets also loads its libev plugin at run time).
RUNTIME_PACKAGES = {
    "websockets": ["libwebsockets17", "libwebsockets-evlib-ev"],
    "ev": ["libev4"],
    "pq": ["libpq5"],
    "sodium": ["libsodium23"],
}

# Shell constructs that /bin/sh on Debian (dash) does not have.
BASHISMS = [
    (re.compile(r"/dev/(tcp|udp)/"), "/dev/tcp or /dev/udp redirection"),
    (re.compile(r"\[\["), "[[ ... ]]"),
    (re.compile(r"<<<"), "here-string <<<"),
    (re.compile(r"\$'"), "$'...' quoting"),
    (re.compile(r"&>"), "&> redirection"),
    (re.compile(r"\|&"), "|& pipe"),
    (re.compile(r"\{[^{}\s]*\.\.[^{}\s]*\}"), "brace expansion {a..b}"),
    (re.compile(r"(^|[;&|]\s*)(source|function)\s"), "source/function keyword"),
    (re.compile(r"\bbash\b"), "bash (not in the runtime image)"),
    (re.compile(r"\$\{[A-Za-z_]\w*(:\d|//|/|\^|,)"), "bash-only parameter expansion"),
]


def bashisms(command: str) -> list[str]:
    return [what for pattern, what in BASHISMS if pattern.search(command)]


# ---------------------------------------------------------------------------------------
# docker-compose.yml


@pytest.fixture(scope="module")
def compose() -> dict:
    with COMPOSE.open() as f:
        data = yaml.safe_load(f)
    assert isinstance(data, dict), "docker-compose.yml is not a YAML mapping"
    return data


def service(compose: dict, name: str) -> dict:
    services = compose.get("services") or {}
    assert name in services, f"docker-compose.yml has no service {name!r} (has {sorted(services)})"
    return services[name] or {}


def environment(svc: dict) -> dict[str, str]:
    """A service's environment as a dict, in either of compose's two forms."""
    env = svc.get("environment") or {}
    if isinstance(env, list):
        pairs = (item.split("=", 1) if "=" in item else (item, "") for item in env)
        return {key: value for key, value in pairs}
    return {key: "" if value is None else str(value) for key, value in env.items()}


INTERPOLATION = re.compile(r"\$\$|\$\{([A-Za-z_]\w*)(?:(:?[-?+])([^}]*))?\}|\$([A-Za-z_]\w*)")


def interpolate(value: str, env: dict[str, str] | None = None) -> str:
    """Compose's ${VAR}, ${VAR:-default}, ${VAR-default} and $$, with `env` (empty: the
    defaults, as on a machine that sets none of the variables)."""
    env = env or {}

    def replace(match: re.Match) -> str:
        if match.group(0) == "$$":
            return "$"
        name = match.group(1) or match.group(4)
        operator, default = match.group(2), match.group(3) or ""
        if operator in (":-", "-"):
            present = name in env and (env[name] != "" or operator == "-")
            return env[name] if present else default
        return env.get(name, "")

    return INTERPOLATION.sub(replace, value)


def healthcheck_commands(check) -> list[str]:
    """The command text of a compose healthcheck `test` (shell string or argv)."""
    if check is None:
        return []
    test = check.get("test") if isinstance(check, dict) else None
    if test is None:
        return []
    if isinstance(test, str):
        return [test]
    if test and test[0] in ("CMD-SHELL",):
        return [" ".join(test[1:])]
    if test and test[0] in ("CMD",):
        return [" ".join(test[1:])]
    return [" ".join(test)]


def test_compose_services(compose):
    services = compose.get("services") or {}
    for name in ("postgres", "migrate", "duel-server"):
        assert name in services, f"service {name!r} missing"
    assert str(service(compose, "postgres").get("image", "")).startswith("postgres:15"), \
        "postgres should run the postgres:15 image"


def test_compose_startup_order(compose):
    server = service(compose, "duel-server")
    depends = server.get("depends_on")
    assert isinstance(depends, dict), "duel-server depends_on must be the long form, with conditions"
    assert (depends.get("migrate") or {}).get("condition") == "service_completed_successfully", \
        "duel-server must start only after migrate exited 0 (condition: service_completed_successfully)"
    migrate = service(compose, "migrate")
    migrate_depends = migrate.get("depends_on")
    assert isinstance(migrate_depends, dict), "migrate depends_on must be the long form, with conditions"
    assert (migrate_depends.get("postgres") or {}).get("condition") == "service_healthy", \
        "migrate must wait for a healthy postgres"


def test_compose_restart_policies(compose):
    assert service(compose, "duel-server").get("restart") == "unless-stopped"
    # Quoted: YAML 1.1 reads a bare `no` as false.
    assert service(compose, "migrate").get("restart") == "no", 'migrate needs restart: "no" (quoted)'


def test_compose_migrate_runs_the_migrate_command(compose):
    migrate = service(compose, "migrate")
    server = service(compose, "duel-server")
    command = migrate.get("command")
    if isinstance(command, str):
        command = command.split()
    assert command == ["migrate"], f"migrate's command should be ['migrate'], is {command!r}"
    assert migrate.get("entrypoint") is None, "migrate must keep the image's entrypoint (duel-server)"
    # The same image as the server: the same build, or the same image name.
    same_build = migrate.get("build") is not None and migrate.get("build") == server.get("build")
    same_image = migrate.get("image") is not None and migrate.get("image") == server.get("image")
    assert same_build or same_image, "migrate must run the server's image"


def test_compose_database_roles(compose):
    postgres_env = environment(service(compose, "postgres"))
    owner = postgres_env.get("POSTGRES_USER", "postgres")
    database = postgres_env.get("POSTGRES_DB", owner)
    owner_password = interpolate(postgres_env.get("POSTGRES_PASSWORD", ""))
    assert owner_password, "POSTGRES_PASSWORD must be set"

    server_url = urlsplit(interpolate(environment(service(compose, "duel-server")).get("DATABASE_URL", "")))
    assert server_url.username == "quizduel_server", \
        f"the server must connect as quizduel_server, not {server_url.username!r}"
    assert server_url.hostname == "postgres" and server_url.path.lstrip("/") == database

    migrate_url = urlsplit(interpolate(environment(service(compose, "migrate")).get("DATABASE_URL", "")))
    assert migrate_url.username == owner, f"migrate must connect as the owner {owner!r}"
    assert migrate_url.hostname == "postgres" and migrate_url.path.lstrip("/") == database
    assert migrate_url.password == owner_password, "migrate's password must be POSTGRES_PASSWORD's"

    # The server's password is what the init script gives quizduel_server.
    server_password_vars = [key for key in postgres_env if "SERVER" in key and "PASSWORD" in key]
    assert server_password_vars, "postgres needs the server role's password in its environment for the init script"
    assert server_url.password == interpolate(postgres_env[server_password_vars[0]]), \
        "the server's DATABASE_URL password differs from the one the init script sets"


def test_compose_passwords_come_from_the_environment(compose):
    for name in ("postgres", "migrate", "duel-server"):
        for key, value in environment(service(compose, name)).items():
            if "PASSWORD" in key or key == "DATABASE_URL":
                assert "${" in value, f"{name}.{key} must come from an environment variable with a dev default"
    assert re.search(r"(?im)^#.*\b(change|must)\b.*", COMPOSE.read_text()), \
        "docker-compose.yml should say that the default passwords must be changed"


def test_compose_healthchecks(compose):
    postgres_check = service(compose, "postgres").get("healthcheck")
    assert postgres_check and "pg_isready" in " ".join(healthcheck_commands(postgres_check))
    server = service(compose, "duel-server")
    server_check = server.get("healthcheck")
    assert server_check and not server_check.get("disable"), "duel-server needs a healthcheck"
    commands = healthcheck_commands(server_check)
    assert commands, "duel-server's healthcheck has no test"
    port = environment(server).get("PORT", "8080")
    assert any("/readyz" in c and f":{port}/" in c for c in commands), \
        f"duel-server's healthcheck should probe /readyz on port {port}"


def test_compose_healthchecks_need_no_bash(compose):
    for name, svc in (compose.get("services") or {}).items():
        for command in healthcheck_commands((svc or {}).get("healthcheck")):
            found = bashisms(command)
            assert not found, f"{name}'s healthcheck uses {found}: the images' /bin/sh is dash"


def test_compose_server_settings(compose):
    server = service(compose, "duel-server")
    env = environment(server)
    assert env.get("LOG_FORMAT") == "json"
    ports = [str(p) for p in server.get("ports") or []]
    assert any(p.split(":")[-1].split("/")[0] == env.get("PORT", "8080") for p in ports), \
        f"duel-server should publish its PORT, publishes {ports}"


def local_sources(compose: dict):
    """(service, kind, host path, container target) of every local path the file names."""
    for name, svc in (compose.get("services") or {}).items():
        svc = svc or {}
        build = svc.get("build")
        if build is not None:
            context = build if isinstance(build, str) else build.get("context", ".")
            dockerfile = "Dockerfile" if isinstance(build, str) else build.get("dockerfile", "Dockerfile")
            yield name, "build context", ROOT / context, None
            yield name, "Dockerfile", ROOT / context / dockerfile, None
        for volume in svc.get("volumes") or []:
            if isinstance(volume, str):
                parts = volume.split(":")
                source, target = parts[0], parts[1] if len(parts) > 1 else parts[0]
                if source.startswith((".", "/", "~")):
                    yield name, "bind mount", (ROOT / source).resolve(), target
            elif volume.get("type") == "bind":
                yield name, "bind mount", (ROOT / volume["source"]).resolve(), volume.get("target")
        for env_file in ([svc["env_file"]] if isinstance(svc.get("env_file"), str) else svc.get("env_file") or []):
            path = env_file if isinstance(env_file, str) else env_file.get("path")
            required = isinstance(env_file, str) or env_file.get("required", True)
            if required:
                yield name, "env_file", ROOT / path, None


def test_compose_local_paths_exist(compose):
    for name, kind, path, _ in local_sources(compose):
        assert path.exists(), f"{name}: {kind} {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path} does not exist"


def test_compose_named_volumes_are_declared(compose):
    declared = set((compose.get("volumes") or {}).keys())
    for name, svc in (compose.get("services") or {}).items():
        for volume in (svc or {}).get("volumes") or []:
            if isinstance(volume, str):
                source = volume.split(":")[0]
                if ":" in volume and not source.startswith((".", "/", "~")):
                    assert source in declared, f"{name}: named volume {source!r} is not declared under volumes:"


def init_scripts(compose: dict) -> list[Path]:
    scripts = []
    for _, kind, path, target in local_sources(compose):
        if kind != "bind mount" or not target or not target.startswith("/docker-entrypoint-initdb.d"):
            continue
        scripts.extend(sorted(p for p in path.iterdir() if p.is_file()) if path.is_dir() else [path])
    return scripts


def test_compose_init_scripts(compose):
    scripts = init_scripts(compose)
    assert scripts, "postgres should mount an init script into /docker-entrypoint-initdb.d"
    postgres_env = environment(service(compose, "postgres"))
    creates_server_role = False
    for script in scripts:
        name = script.name
        if name.endswith((".sql", ".sql.gz", ".sql.xz", ".sql.zst")):
            pass
        elif name.endswith(".sh"):
            assert os.access(script, os.X_OK), f"{script.relative_to(ROOT)} must be executable (chmod +x)"
            assert script.read_text().startswith("#!/bin/sh"), \
                f"{script.relative_to(ROOT)}: the postgres image runs it; use #!/bin/sh"
        else:
            pytest.fail(f"{script.relative_to(ROOT)}: the postgres entrypoint runs only *.sh, *.sql and *.sql.gz/xz/zst")
        text = script.read_text(errors="replace")
        creates_server_role |= bool(re.search(r"ROLE\s+quizduel_server\s+LOGIN", text))
        # Every QUIZDUEL_* variable the script reads must reach the postgres container.
        for variable in set(re.findall(r"\b(QUIZDUEL_[A-Z0-9_]+)\b", text)):
            assert variable in postgres_env, f"{script.name} reads {variable}, which postgres's environment lacks"
    assert creates_server_role, "an init script must create the login role quizduel_server"


def test_init_scripts_parse_as_sh(compose):
    sh = shutil.which("dash") or shutil.which("sh")
    for script in init_scripts(compose):
        if script.name.endswith(".sh"):
            result = subprocess.run([sh, "-n", str(script)], capture_output=True, text=True)
            assert result.returncode == 0, f"{script.name}: {result.stderr}"


# ---------------------------------------------------------------------------------------
# Dockerfile and .dockerignore


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    instructions, pending = [], ""
    for raw in DOCKERFILE.read_text().splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if pending and line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        if line.strip():
            keyword, _, arguments = line.strip().partition(" ")
            instructions.append((keyword.upper(), arguments.strip()))
    assert not pending, "the Dockerfile ends in a continuation line"
    return instructions


def stages() -> list[list[tuple[str, str]]]:
    result: list[list[tuple[str, str]]] = []
    for keyword, arguments in dockerfile_instructions():
        if keyword == "FROM":
            result.append([])
        assert result, "the Dockerfile must start with FROM"
        result[-1].append((keyword, arguments))
    return result


def version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def tools_version(manifest: Path) -> tuple[int, ...]:
    match = re.match(r"//\s*swift-tools-version\s*:\s*([0-9.]+)", manifest.read_text())
    assert match, f"{manifest} has no swift-tools-version line"
    return version(match.group(1).rstrip("."))


def swift_image_version() -> tuple[int, ...]:
    for keyword, arguments in dockerfile_instructions():
        match = re.match(r"(?:--\S+\s+)*(?:docker\.io/)?(?:library/)?swift:(\d+\.\d+(?:\.\d+)?)\S*", arguments)
        if keyword == "FROM" and match:
            return version(match.group(1))
    pytest.fail("the Dockerfile has no FROM swift:X.Y build stage")


def test_swift_image_matches_the_package():
    image = swift_image_version()
    package = tools_version(ROOT / "Package.swift")
    assert image[0] == package[0], f"swift:{image} and swift-tools-version {package} differ in major version"
    assert image[:2] >= package[:2], f"swift:{image} is older than swift-tools-version {package}"
    assert image[:2] >= DEPENDENCIES_NEED_SWIFT, f"the dependencies need Swift {DEPENDENCIES_NEED_SWIFT}+"


def test_swift_image_builds_the_resolved_dependencies():
    checkouts = sorted((ROOT / ".build" / "checkouts").glob("*/Package.swift"))
    if not checkouts:
        pytest.skip("no .build/checkouts (dependencies not resolved on this machine)")
    image = swift_image_version()
    for manifest in checkouts:
        needed = tools_version(manifest)
        assert image[:2] >= needed[:2], f"{manifest.parent.name} needs swift-tools-version {needed}, image is {image}"


def runtime_stage() -> list[tuple[str, str]]:
    return stages()[-1]


def apt_packages(stage) -> set[str]:
    packages = set()
    for keyword, arguments in stage:
        if keyword != "RUN":
            continue
        for install in re.findall(r"apt-get\s+install\s+([^&;|]*)", arguments):
            packages |= {word for word in install.split() if not word.startswith("-")}
    return packages


def dockerfile_healthcheck(stage) -> str | None:
    for keyword, arguments in stage:
        if keyword == "HEALTHCHECK":
            return arguments
    return None


def test_runtime_stage():
    stage = runtime_stage()
    base = stage[0][1].split()[0]
    assert base.startswith("debian:bookworm-slim"), f"runtime stage should be debian:bookworm-slim, is {base}"
    packages = apt_packages(stage)
    for needed in ("libwebsockets17", "libpq5", "libsodium23", "ca-certificates"):
        assert needed in packages, f"the runtime stage does not install {needed}"


def test_runtime_has_the_libraries_the_module_maps_link():
    packages = apt_packages(runtime_stage())
    for modulemap in sorted((ROOT / "Sources").glob("*/module.modulemap")):
        for library in re.findall(r'\blink\s+"([^"]+)"', modulemap.read_text()):
            assert library in RUNTIME_PACKAGES, \
                f"{modulemap.relative_to(ROOT)} links lib{library}: add its Debian runtime package to RUNTIME_PACKAGES and the Dockerfile"
            for package in RUNTIME_PACKAGES[library]:
                assert package in packages, f"lib{library} needs {package} in the runtime stage"


def test_runtime_runs_as_non_root():
    users = [arguments for keyword, arguments in runtime_stage() if keyword == "USER"]
    assert users, "the runtime stage needs a USER"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0"), "the runtime stage must not run as root"


def test_runtime_healthcheck_and_entrypoint():
    stage = runtime_stage()
    check = dockerfile_healthcheck(stage)
    assert check, "the runtime stage needs a HEALTHCHECK"
    assert "/readyz" in check and "127.0.0.1" in check, "HEALTHCHECK should probe http://127.0.0.1:${PORT}/readyz"
    assert "${PORT}" in check or "$PORT" in check, "HEALTHCHECK should follow PORT"
    assert not bashisms(check), f"HEALTHCHECK uses {bashisms(check)}: /bin/sh is dash"
    entrypoints = [arguments for keyword, arguments in stage if keyword == "ENTRYPOINT"]
    assert entrypoints and json.loads(entrypoints[-1]) == ["duel-server"], "ENTRYPOINT should be [\"duel-server\"]"
    env = " ".join(arguments for keyword, arguments in stage if keyword == "ENV")
    for variable in ("QUIZDUEL_SQL_DIR", "QUIZDUEL_WEB_DIR", "PORT"):
        assert variable in env, f"the runtime stage should set {variable}"


def test_curl_installed_where_a_healthcheck_uses_it(compose):
    packages = apt_packages(runtime_stage())
    commands = [dockerfile_healthcheck(runtime_stage()) or ""]
    for name in ("duel-server", "migrate"):
        commands += healthcheck_commands(service(compose, name).get("healthcheck"))
    for tool in ("curl", "wget"):
        if any(re.search(rf"\b{tool}\b", command) for command in commands):
            assert tool in packages, f"a healthcheck runs {tool} but the runtime stage does not install it"


def copy_sources() -> list[str]:
    sources = []
    for keyword, arguments in dockerfile_instructions():
        if keyword not in ("COPY", "ADD"):
            continue
        words = arguments.split()
        if any(word.startswith("--from") for word in words):
            continue
        words = [word for word in words if not word.startswith("--")]
        if arguments.lstrip().startswith("["):
            words = [w for w in json.loads(arguments) if not w.startswith("--")]
        sources.extend(words[:-1])
    return sources


def test_copy_sources_exist():
    sources = copy_sources()
    assert sources, "the Dockerfile copies nothing from the context"
    for source in sources:
        matches = glob.glob(str(ROOT / source))
        assert matches, f"COPY {source}: nothing in the repository matches it"


def dockerignore_rules() -> list[tuple[bool, re.Pattern]]:
    """(exclude?, regex) per .dockerignore line, in order (the last match wins)."""
    rules = []
    for raw in DOCKERIGNORE.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        exclude = not line.startswith("!")
        pattern = os.path.normpath(line.lstrip("!").strip()).lstrip("/")
        regex, i = "", 0
        while i < len(pattern):
            if pattern.startswith("**", i):
                regex += ".*"
                i += 2
                if pattern.startswith("/", i):
                    regex, i = regex[:-2] + "(?:.*/)?", i + 1
            elif pattern[i] == "*":
                regex, i = regex + "[^/]*", i + 1
            elif pattern[i] == "?":
                regex, i = regex + "[^/]", i + 1
            elif pattern[i] == "[":
                end = pattern.find("]", i)
                regex, i = (regex + pattern[i:end + 1], end + 1) if end > 0 else (regex + r"\[", i + 1)
            else:
                regex, i = regex + re.escape(pattern[i]), i + 1
        rules.append((exclude, re.compile(regex + r"\Z")))
    return rules


def ignored(path: str, rules=None) -> bool:
    """Whether .dockerignore keeps `path` (relative to the root) out of the build context: a
    path is out when it or one of its parent directories matches, the last rule deciding."""
    rules = dockerignore_rules() if rules is None else rules
    parts = Path(path).parts
    candidates = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    result = False
    for exclude, regex in rules:
        if any(regex.match(candidate) for candidate in candidates):
            result = exclude
    return result


def test_dockerignore_keeps_out_the_bulk():
    assert DOCKERIGNORE.exists(), ".dockerignore is missing: the context would include .build (gigabytes)"
    for path in (".build", ".build/release/duel-server", ".build-bench", ".data", ".data/postgres/base",
                 ".git", "bench/results/x.md", "Tests/web/test_duel_browser.py", "notes.swp"):
        assert ignored(path), f".dockerignore lets {path} into the build context"


def test_dockerignore_keeps_what_the_build_needs():
    for path in ("Package.swift", "Package.resolved", "Sources", "Sources/DuelCore/Duel.swift", "sql",
                 "sql/migrations/001_core.sql", "web", "web/index.html"):
        assert not ignored(path), f".dockerignore keeps {path} out of the build context"
    for source in copy_sources():
        for match in glob.glob(str(ROOT / source)):
            relative = os.path.relpath(match, ROOT)
            assert not ignored(relative), f"COPY {source}: .dockerignore excludes {relative}"


def test_build_context_has_every_target():
    """SwiftPM loads the manifest only when every target's directory exists, tests included."""
    manifest = (ROOT / "Package.swift").read_text()
    copied = {Path(source).parts[0] for source in copy_sources()}
    targets = re.findall(r'\.(target|executableTarget|systemLibrary|testTarget)\(\s*name:\s*"([^"]+)"', manifest)
    assert targets, "no targets found in Package.swift"
    for kind, name in targets:
        directory = f"{'Tests' if kind == 'testTarget' else 'Sources'}/{name}"
        assert (ROOT / directory).is_dir(), f"{directory} does not exist"
        assert directory.split("/")[0] in copied, f"the Dockerfile does not copy {directory.split('/')[0]}"
        assert not ignored(directory), f".dockerignore keeps {directory} out, but Package.swift declares it"
        files = [p for p in (ROOT / directory).rglob("*") if p.is_file()]
        assert any(not ignored(os.path.relpath(p, ROOT)) for p in files), f"{directory} is empty in the context"


# ---------------------------------------------------------------------------------------
# Grafana dashboard and Prometheus config


@pytest.fixture(scope="module")
def dashboard() -> dict:
    with DASHBOARD.open() as f:
        return json.load(f)


def all_panels(panels: list) -> list[dict]:
    result = []
    for panel in panels:
        result.append(panel)
        result.extend(all_panels(panel.get("panels") or []))
    return result


def expressions(dashboard: dict) -> list[tuple[str, str]]:
    """(panel title, PromQL) of every query in the dashboard."""
    result = []
    for panel in all_panels(dashboard.get("panels") or []):
        for target in panel.get("targets") or []:
            if target.get("expr"):
                result.append((panel.get("title", "?"), target["expr"]))
    return result


PROMQL_KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or",
                   "unless", "offset", "inf", "nan", "atan2", "start", "end"}


def promql_metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression selects (functions, keywords, label matchers,
    ranges and grouping clauses removed)."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'', '""', expr)
    text = re.sub(r"\{[^}]*\}", " ", text)
    text = re.sub(r"\[[^\]]*\]", " ", text)
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    text = re.sub(r"\$\{?\w+\}?", " ", text)
    names = set()
    for match in re.finditer(r"(?<![\w.:])([A-Za-z_:][\w:]*)", text):
        word = match.group(1)
        following = text[match.end():].lstrip()
        if following.startswith("(") or word.lower() in PROMQL_KEYWORDS:
            continue
        names.add(word)
    return names


def label_matchers(expr: str) -> list[tuple[str, str, str]]:
    """(label, operator, value) of every matcher in the expression's selectors."""
    result = []
    for block in re.findall(r"\{([^}]*)\}", expr):
        for label, operator, value in re.findall(r'(\w+)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"', block):
            result.append((label, operator, value))
    return result


def swift_sources_text() -> str:
    files = sorted(METRIC_SOURCES.rglob("*.swift")) + sorted(HTTP_SOURCES.glob("*.swift"))
    return "\n".join(path.read_text(errors="replace") for path in dict.fromkeys(files))


def rendered(name: str, sources: str) -> bool:
    if re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", sources):
        return True
    for suffix in ("_bucket", "_sum", "_count"):
        if name.endswith(suffix) and re.search(rf"(?<![\w]){re.escape(name[: -len(suffix)])}(?![\w])", sources):
            return True
    return False


def test_dashboard_structure(dashboard):
    assert 36 <= dashboard.get("schemaVersion", 0) <= 41, "schemaVersion should be about 39"
    variables = {v.get("name"): v for v in (dashboard.get("templating") or {}).get("list") or []}
    ds = variables.get("DS_PROMETHEUS")
    assert ds and ds.get("type") == "datasource" and ds.get("query") == "prometheus", \
        "the dashboard needs a datasource variable DS_PROMETHEUS (type prometheus)"
    panels = all_panels(dashboard.get("panels") or [])
    ids = [p.get("id") for p in panels]
    assert len(ids) == len(set(ids)), "panel ids repeat"
    for panel in panels:
        if panel.get("type") == "row":
            continue
        uid = (panel.get("datasource") or {}).get("uid")
        assert uid == "${DS_PROMETHEUS}", f"panel {panel.get('title')!r} uses data source {uid!r}"
        for target in panel.get("targets") or []:
            target_uid = (target.get("datasource") or {"uid": uid}).get("uid")
            assert target_uid == "${DS_PROMETHEUS}", f"a query of {panel.get('title')!r} uses {target_uid!r}"
        grid = panel.get("gridPos") or {}
        assert grid.get("x", 0) + grid.get("w", 0) <= 24, f"panel {panel.get('title')!r} is wider than the grid"


def test_dashboard_panels_do_not_overlap(dashboard):
    cells: dict[tuple[int, int], str] = {}
    for panel in all_panels(dashboard.get("panels") or []):
        grid = panel["gridPos"]
        for x in range(grid["x"], grid["x"] + grid["w"]):
            for y in range(grid["y"], grid["y"] + grid["h"]):
                assert (x, y) not in cells, f"{panel.get('title')!r} overlaps {cells[(x, y)]!r}"
                cells[(x, y)] = panel.get("title", "?")


def test_dashboard_covers_the_metrics(dashboard):
    used = set()
    for _, expr in expressions(dashboard):
        used |= promql_metric_names(expr)
    wanted = ["quizduel_connections", "quizduel_players_online", "quizduel_live_duels", "quizduel_queue_length",
              "quizduel_answers_total", "quizduel_events_sent_total", "quizduel_messages_received_total",
              "quizduel_errors_total", "quizduel_answer_seconds_bucket", "quizduel_database_seconds_bucket",
              "quizduel_lane_inputs_total", "quizduel_lane_batches_total", *PROCESS_METRICS]
    missing = [name for name in wanted if name not in used]
    assert not missing, f"the dashboard has no panel for {missing}"
    quantiles = [expr for _, expr in expressions(dashboard) if "histogram_quantile" in expr]
    assert any("0.99" in e and "quizduel_answer_seconds_bucket" in e for e in quantiles)
    assert any("0.5" in e and "quizduel_answer_seconds_bucket" in e for e in quantiles)
    assert any("0.99" in e and "quizduel_database_seconds_bucket" in e for e in quantiles)


def test_dashboard_metric_names_are_rendered_by_the_server(dashboard):
    sources = swift_sources_text()
    queries = list(expressions(dashboard))
    for variable in (dashboard.get("templating") or {}).get("list") or []:
        query = variable.get("query")
        query = query.get("query") if isinstance(query, dict) else query
        if variable.get("type") == "query" and query:
            queries += [(f"variable {variable['name']}", m) for m in re.findall(r"label_values\(\s*([^,)]+)", query)]
    missing = {}
    for title, expr in queries:
        for name in promql_metric_names(expr):
            if not rendered(name, sources):
                missing.setdefault(name, title)
    assert not missing, (
        "metric names the dashboard queries but no Swift source under Sources/DuelServer renders "
        f"(name: first panel): {missing}")


def test_dashboard_label_values_are_rendered_by_the_server(dashboard):
    """A literal matcher (scope="cluster") must match what the server writes, or the panel is empty."""
    sources = swift_sources_text()
    for title, expr in expressions(dashboard):
        for label, operator, value in label_matchers(expr):
            if operator != "=" or value.startswith("$") or label in ("job", "instance", "le", "service"):
                continue
            assert f'{label}=\\"{value}\\"' in sources or f'{label}="{value}"' in sources, \
                f"{title!r} matches {label}=\"{value}\", which the server never renders"


def test_dashboard_aggregates_cluster_gauges_with_max(dashboard):
    for title, expr in expressions(dashboard):
        for gauge in CLUSTER_GAUGES:
            if gauge in promql_metric_names(expr):
                assert re.search(r"\bmax\b", expr) and not re.search(r"\bsum\b", expr), \
                    f"{title!r}: {gauge} is cluster-wide (same on every instance): aggregate with max, not sum"
                assert ("scope", "=", "cluster") in label_matchers(expr), f"{title!r}: select {gauge}{{scope=\"cluster\"}}"


def test_dashboard_quantiles_group_by_le(dashboard):
    for title, expr in expressions(dashboard):
        if "histogram_quantile" in expr:
            assert re.search(r"by\s*\([^)]*\ble\b", expr), f"{title!r}: histogram_quantile needs sum by (le)"
            assert "_bucket" in expr, f"{title!r}: histogram_quantile over a non-bucket series"


def test_process_metrics_are_rendered():
    """The process metrics the dashboard and docs promise (the server adds them to /metrics)."""
    sources = swift_sources_text()
    missing = [name for name in PROCESS_METRICS if not rendered(name, sources)]
    assert not missing, f"not yet rendered by any Swift source under Sources/DuelServer: {missing}"


def test_every_rendered_metric_is_documented():
    guide = OBSERVABILITY_GUIDE.read_text()
    names = set()
    for path in HTTP_SOURCES.glob("*.swift"):
        text = path.read_text(errors="replace")
        names |= set(re.findall(r'"((?:quizduel|process)_[a-z0-9_]+)"', text))
        names |= set(re.findall(r"#\s*TYPE\s+((?:quizduel|process)_[a-z0-9_]+)", text))
    assert names, "found no metric names under Sources/DuelServer/HTTP"
    missing = sorted(name for name in names if f"`{name}" not in guide)
    assert not missing, f"docs/OBSERVABILITY.md does not describe {missing}"


def test_prometheus_config():
    with PROMETHEUS.open() as f:
        config = yaml.safe_load(f)
    jobs = config.get("scrape_configs") or []
    assert jobs, "prometheus.yml has no scrape_configs"
    for job in jobs:
        assert job.get("job_name"), "a scrape config without job_name"
        assert job.get("metrics_path", "/metrics") == "/metrics", f"{job['job_name']} does not scrape /metrics"
        targets = [t for group in job.get("static_configs") or [] for t in group.get("targets") or []]
        assert targets or any(key.endswith("_sd_configs") for key in job), f"{job['job_name']} has no targets"
        for target in targets:
            assert re.fullmatch(r"[\w.-]+:\d+", target), f"target {target!r} should be host:port"
    text = PROMETHEUS.read_text()
    assert 'scope="cluster"' in text and re.search(r"\bmax\b", text), \
        "prometheus.yml should say how to aggregate the cluster-wide gauges (max over scope=\"cluster\")"


# ---------------------------------------------------------------------------------------
# shellcheck (Debian's; Tests/deploy/run installs it). hadolint is not packaged by Debian.


def shell_scripts(compose: dict) -> list[Path]:
    return [s for s in init_scripts(compose) if s.name.endswith(".sh")] + [ROOT / "Tests" / "deploy" / "run"]


def test_shellcheck(compose):
    shellcheck = shutil.which("shellcheck")
    if not shellcheck:
        pytest.skip("shellcheck is not installed (Tests/deploy/run installs it)")
    scripts = [str(path) for path in shell_scripts(compose)]
    result = subprocess.run([shellcheck, "--severity=style", *scripts], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


# ---------------------------------------------------------------------------------------
# The checker's own helpers


@pytest.mark.parametrize(
    "expr, names",
    [
        ('max by (bank) (quizduel_queue_length{scope="cluster",job=~"$job"})', {"quizduel_queue_length"}),
        ("histogram_quantile(0.99, sum by (le) (rate(a_seconds_bucket[$__rate_interval])))", {"a_seconds_bucket"}),
        ('time() - process_start_time_seconds{instance=~"$instance"}', {"process_start_time_seconds"}),
        ("sum(rate(x_total[5m])) / sum(rate(y_total[5m])) * 1e3", {"x_total", "y_total"}),
        ("a_total + on(instance) group_left(version) b_info", {"a_total", "b_info"}),
    ],
)
def test_promql_metric_names(expr, names):
    assert promql_metric_names(expr) == names


def test_dockerignore_matching():
    rules = [(True, re.compile(r"\.build\Z")), (True, re.compile(r"Tests/web\Z")), (True, re.compile(r"[^/]*\.md\Z")),
             (False, re.compile(r"README\.md\Z"))]
    assert ignored(".build/x/y", rules)
    assert ignored("Tests/web/run", rules) and not ignored("Tests/DuelCoreTests/A.swift", rules)
    assert ignored("NOTES.md", rules) and not ignored("README.md", rules) and not ignored("docs/A.md", rules)


def test_bashisms_detector():
    assert bashisms("exec 3<>/dev/tcp/127.0.0.1/8080")
    assert bashisms("[[ -f x ]]")
    assert not bashisms("curl -fsS -o /dev/null http://127.0.0.1:8080/readyz")
    assert not bashisms('curl -fsS "http://127.0.0.1:${PORT}/readyz" || exit 1')
    assert not bashisms("pg_isready -U quizduel -d quizduel")


def test_interpolation():
    assert interpolate("a:${P:-dev}@h") == "a:dev@h"
    assert interpolate("a:${P:-dev}@h", {"P": "s3cret"}) == "a:s3cret@h"
    assert interpolate("$$HOME ${Q}") == "$HOME "
