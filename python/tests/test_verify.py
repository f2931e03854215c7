"""warploom.verify and warploom.schedules: the C++ verifier over the build's registered schedules,
as `warploom verify` and `warploom list` run it, with the verdict as a value."""

import pytest

import warploom


def test_schedules_list_the_builds_schedule_units():
    names = [name for name, _ in warploom.schedules()]
    for expected in ("sm90_ts_gemm", "sm90_ts_gemm_pingpong", "simt_gemm", "tma_copy"):
        assert expected in names
    assert all(description for _, description in warploom.schedules())


def test_verify_one_schedule():
    (verdict,) = warploom.verify("sm90_ts_gemm")
    assert verdict.ok and bool(verdict) and verdict.violations == []
    assert verdict.decided and verdict.states > 0 and verdict.scenarios > 0
    assert verdict.table.startswith("TaskManager sm90_ts_gemm:")
    assert "sm90_ts_gemm: verified (model check:" in str(verdict)
    assert repr(verdict).startswith("Verdict(sm90_ts_gemm: verified")


def test_an_unknown_schedule_is_named_with_those_that_exist():
    with pytest.raises(ValueError, match="no schedule named `sm90_gemm`: this build has .*sm90_ts_gemm"):
        warploom.verify("sm90_gemm")


def test_a_state_budget_too_small_is_undecided_and_not_ok():
    (verdict,) = warploom.verify("sm90_ts_gemm", max_states=10)
    assert not verdict.decided and not verdict.ok
    assert any(v.startswith("R-M7") for v in verdict.violations)


def test_a_cluster_is_modelled_cta_by_cta_unless_told_otherwise():
    # As `warploom verify` and `--no-clusters`: the 2-CTA GEMM's tasks once per CTA, multicast
    # copies and remote arrivals between them; one CTA is the compile-time check's model.
    (cluster,) = warploom.verify("sm90_ts_gemm_c2")
    (one_cta,) = warploom.verify("sm90_ts_gemm_c2", clusters=False)
    assert cluster.ok and cluster.decided and one_cta.ok and one_cta.decided
    assert cluster.states != one_cta.states
