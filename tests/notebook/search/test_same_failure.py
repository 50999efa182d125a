"""What "the same failure" is (notebook/search/failure.py, DESIGN.md section 6b): two
instances of one failure, in other folders with other names, numbers, versions and
ports, mask to one signal; another tool, another error code, or a name the command gives
against one it does not, do not."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st
from rolebook.notebook.search.failure import answers, failure_of, recognise, sameness

NAME = st.from_regex(r"[a-z][a-z_]{2,12}", fullmatch=True)
FOLDER = st.lists(NAME, min_size=1, max_size=4).map(lambda parts: "/" + "/".join(parts))
NUMBER = st.integers(min_value=1, max_value=65535)

TEMPLATES = [
    (
        "python {f}/{n}.py",
        'Traceback (most recent call last):\n  File "{f}/{n}.py", line {k}, in <module>\n'
        "    import {m}\nModuleNotFoundError: No module named '{m}'",
    ),
    (
        "npm install {m}@{k}.0.{k}",
        "npm error code ETARGET\nnpm error notarget No matching version found for {m}@{k}.0.{k}.",
    ),
    (
        "node {f}/server.js",
        "Error: listen EADDRINUSE: address already in use :::{k}\n    at Server.setupListenHandle "
        "[as _listen2] (node:net:1817:16)",
    ),
    (
        "git push origin {n}",
        "To {f}.git\n ! [rejected]        {n} -> {n} (fetch first)\nerror: failed to push some refs to '{f}.git'",
    ),
    ("gcc -o {n} {n}.c", "{n}.c: In function 'main':\n{n}.c:{k}:5: error: implicit declaration of function '{m}'"),
]


@given(st.sampled_from(TEMPLATES), NAME, NAME, FOLDER, NUMBER, NAME, NAME, FOLDER, NUMBER)
def test_two_instances_of_one_failure_mask_alike(template, n1, m1, f1, k1, n2, m2, f2, k2) -> None:  # type: ignore[no-untyped-def]
    command, output = template
    for n, m, f in ((n1, m1, f1), (n2, m2, f2)):
        # a module named as the script or its folder is the agent's own; a branch named as the folder, too
        assume(m not in {n, *f.split("/")} and n not in f.split("/"))
    one = failure_of(command.format(n=n1, m=m1, f=f1, k=k1), output.format(n=n1, m=m1, f=f1, k=k1), 1).masked()
    two = failure_of(command.format(n=n2, m=m2, f=f2, k=k2), output.format(n=n2, m=m2, f=f2, k=k2), 1).masked()
    assert sameness(one, two) >= 0.9, (one, two)


def test_another_tool_or_another_error_code_is_another_failure() -> None:
    missing = failure_of("python app.py", "ModuleNotFoundError: No module named 'requests'").masked()
    pip = failure_of("pip install -e .", "ModuleNotFoundError: No module named 'setuptools'").masked()
    other = failure_of("python app.py", "ImportError: cannot import name 'x' from 'y'").masked()
    none = failure_of("python app.py", "error: no module named requests found").masked()
    assert sameness(missing, pip) == 0 and sameness(missing, other) == 0 and sameness(missing, none) == 0


def test_a_name_the_command_gives_is_not_a_missing_name() -> None:
    own = failure_of("python3 billing/cli.py", "ModuleNotFoundError: No module named 'billing'").masked()
    third = failure_of("python3 billing/cli.py", "ModuleNotFoundError: No module named 'pandas'").masked()
    again = failure_of("python3 geo/run.py --x 1", "ModuleNotFoundError: No module named 'geo'").masked()
    # the agent's own package masks apart from a missing one: the run of another project
    # that lacks its own package is the same failure, one that lacks pandas is less alike
    assert sameness(own, again) == 1 > sameness(own, third)
    assert recognise([("f1", third), ("f2", own)], again) == ["f2"]


def test_the_most_alike_failures_only_and_the_one_with_the_same_names_first() -> None:
    def m(text: str):  # type: ignore[no-untyped-def]
        return failure_of("npm ci", text).masked()

    exact = m("npm error code EUSAGE\nnpm error The `npm ci` command can only install with a package-lock.json")
    near = m("npm error code EUSAGE\nnpm error ci can only install packages when your package.json and lock agree")
    assert recognise([("near", near), ("exact", exact)], exact) == ["exact"]
    assert recognise([("near", near)], exact, floor=0.99) == []


def test_a_lesson_about_one_package_answers_only_that_package() -> None:
    first = failure_of("python a.py", "ModuleNotFoundError: No module named 'requests'").masked()
    same = failure_of("python b.py", "ModuleNotFoundError: No module named 'requests'").masked()
    other = failure_of("python b.py", "ModuleNotFoundError: No module named 'yaml'").masked()
    about = "requests is not in the base image: pip install requests"
    general = "activate the virtualenv before running scripts"
    assert answers(about, first, same) and not answers(about, first, other)
    assert answers(general, first, other)


def test_a_notice_after_the_error_is_not_the_failure() -> None:
    output = (
        "npm error code E404\nnpm error 404 Not Found - GET x\nnpm notice New major version of npm available! 9 -> 10"
    )
    assert all("notice" not in line for line in failure_of("npm i x", output).keys)
    quiet = "progress 10%\nprogress 90%\nnpm notice New minor version of npm available! 10.1.0 -> 10.2.0"
    assert failure_of("npm i", quiet).keys == ("progress 10%", "progress 90%")
