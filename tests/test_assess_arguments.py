"""``sdcrisk.assess.arguments.parse_assess_args`` (what the cluster workflow's ``config`` step
reads the command's arguments with) parses as the command line ``sdcrisk assess ...`` does: the
same values, the same one-line errors and exit status 2."""

import pytest

import sdcrisk.cli as cli
from sdcrisk.assess.arguments import parse_assess_args

CASES = [["o.csv", "m.csv"], ["o.csv", "m1.csv", "m2.parquet", "--id", "rid", "--known", "a,b", "--attacks", "DBRL",
                              "--max-risk", "5", "--seed", "3", "--no-timings", "--out", "rep"],
         ["o.csv", "m.csv", "--scenarios", "1..all", "--categorical", "c", "--prl-candidates", "4", "--quiet"]]
BAD = [["o.csv"], ["o.csv", "m.csv", "--bogus"], ["o.csv", "m.csv", "--seed", "x"],
       ["o.csv", "m.csv", "--known", "a", "--scenarios", "1..2"], []]


def _command_args(argv, monkeypatch):
    seen = {}
    monkeypatch.setattr(cli, "assess_command", lambda args: seen.setdefault("args", args) and 0)
    assert cli.main(["assess", *argv]) == 0
    return seen["args"]


@pytest.mark.parametrize("argv", CASES)
def test_same_values_as_the_command(argv, monkeypatch):
    theirs = vars(_command_args(argv, monkeypatch))
    theirs.pop("argv")
    assert vars(parse_assess_args(argv)) == theirs


@pytest.mark.parametrize("argv", BAD)
def test_same_errors_as_the_command(argv, capsys):
    with pytest.raises(SystemExit) as ours:
        parse_assess_args(argv)
    our_err = capsys.readouterr().err
    with pytest.raises(SystemExit) as command:
        cli.main(["assess", *argv])
    assert ours.value.code == command.value.code == 2
    assert our_err == capsys.readouterr().err and our_err.count("\n") == 1 and ": error: " in our_err
