"""The OpenSpiel game ``python_escoba``: OpenSpiel's own consistency checks on every preset, the same
hands as the engine and ``trace``, the action encoding reaching every legal move, resampling that
OpenSpiel's ISMCTS can use, and returns equal to the engine's hand points."""

from __future__ import annotations

import importlib
import json
import os
import random

import numpy as np
import pytest


def _need(module: str):
    # CI installs the rl extra (through dev): there a missing module is a failure, not a skip
    if os.environ.get("CI") == "true":
        return importlib.import_module(module)
    return pytest.importorskip(module)


pyspiel = _need("pyspiel")

from helpers import REPO, needs_core

from escoba_sim.env import actions
from escoba_sim.env.actions import ActionHand, SeatStrategy, hand_returns
from escoba_sim.env.openspiel import StrategyBot, deal, rules_from_params
from escoba_sim.game import engine
from escoba_sim.game.rng import PLAY, SplitMix64, shuffled_deck
from escoba_sim.game.rules import PRESETS, RulesError, parse_rules
from escoba_sim.hands.record import make_record, record_for_hand
from escoba_sim.strategies import greedy_key

GAMES = ["python_escoba(rules=ludoteka)", "python_escoba(rules=tradicional)", "python_escoba(rules=cardgames)",
         "python_escoba(rules=robo)", "python_escoba(rules=tradicional,players=3)",
         "python_escoba(rules=cardgames,players=4,teams=yes)", "python_escoba(rules=robo,players=6,teams=yes)"]


def test_every_preset_loads_with_its_ruleset():
    for name, preset in PRESETS.items():
        game = pyspiel.load_game(f"python_escoba(rules={name})")
        assert game.rules == preset
        assert game.num_players() == preset.players
        assert game.num_distinct_actions() == actions.N_ACTIONS
        assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
        assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    game = pyspiel.load_game("python_escoba(rules=tradicional,players=4,teams=yes,ties=none,target=21)")
    assert game.rules == parse_rules("tradicional(players=4,teams=yes,ties=none,target=21)")
    assert game.num_players() == 4


def test_a_rules_file_is_never_opened_but_its_ruleset_can_be_passed_inline(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text('preset = "cardgames"\nbonus_all_oros = 2\nplayers = 3\n')
    for named in (str(path), "/dev/zero", "/dev/stdin"):  # a request names no file the game opens
        with pytest.raises(RulesError, match="names a file"):
            pyspiel.load_game(f"python_escoba(rules={named})")
    # the person reads the file and passes the ruleset it holds
    game = pyspiel.load_game("python_escoba", {"rules": parse_rules(str(path)).canonical()})
    assert game.rules == parse_rules(str(path))
    assert game.num_players() == 3


def test_bad_parameters_fail_clearly():
    with pytest.raises(RulesError, match="unknown preset `ludotek`.*did you mean ludoteka"):
        rules_from_params({"rules": "ludotek"})
    with pytest.raises(RulesError, match="teams"):
        rules_from_params({"rules": "ludoteka", "teams": "yes"})  # teams need 4 or 6 players
    with pytest.raises(Exception, match="dealer"):
        pyspiel.load_game("python_escoba(dealer=2)")


@pytest.mark.parametrize("game_string", GAMES)
def test_openspiel_random_sim_test_with_serialization(game_string):
    game = pyspiel.load_game(game_string)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("game_string", GAMES)
def test_openspiel_random_sim_test_many(game_string):
    pyspiel.random_sim_test(pyspiel.load_game(game_string), num_sims=30, serialize=True, verbose=False)


def play_through_openspiel(game_string: str, strategies: list[str], seed: int, game_index: int):
    """One hand through the OpenSpiel game with our strategies as bots sharing the hand's PLAY stream."""
    game = pyspiel.load_game(game_string)
    rng = SplitMix64.for_hand(seed, game_index, 0, PLAY)
    bots = [StrategyBot(s, rng) for s in strategies]
    state = deal(game.new_initial_state(), shuffled_deck(seed, game_index, 0))
    while not state.is_terminal():
        state.apply_action(bots[state.current_player()].step(state))
    return state


@pytest.mark.parametrize("preset,strategies", [
    ("ludoteka", ["greedy", "random"]), ("tradicional", ["random", "heuristic"]),
    ("cardgames", ["endgame", "defensive"]), ("robo", ["random", "maxoros"]),
    ("tradicional(players=3)", ["random", "sevens", "greedy"]),
])
def test_same_hands_as_the_engine(preset, strategies):
    """Dealer = game % players as in --hands mode; records (moves, score) are identical."""
    rules = parse_rules(preset)
    overrides = "" if "(" not in preset else ",players=3"
    base = preset.split("(")[0]
    for g in range(12):
        state = play_through_openspiel(f"python_escoba(rules={base}{overrides},dealer={g % rules.players})",
                                       strategies, 11, g)
        ours = make_record(state.hand.st, seed=11, game=g, hand=0, strategies=strategies)
        assert ours == record_for_hand(rules, strategies, 11, g, 0)
        result = state.hand_result()
        assert state.returns() == hand_returns(rules, result.total)
        assert abs(sum(state.returns())) < 1e-9


def test_same_hand_as_the_trace_command(cli):
    res = cli("trace", "-s", "random", "--vs", "heuristic", "-r", "tradicional", "--seed", "5", "--game", "3",
              "--json")
    assert res.exit_code == 0, res.output
    traced = json.loads(res.output)
    state = play_through_openspiel(f"python_escoba(rules=tradicional,dealer={traced['dealer']})",
                                   ["random", "heuristic"], 5, 3)
    ours = make_record(state.hand.st, seed=5, game=3, hand=0, strategies=["random", "heuristic"])
    assert ours["moves"] == traced["moves"] and ours["score"] == traced["score"] and ours["deck"] == traced["deck"]


def test_ismcts_plays_through_the_game_as_in_the_core():
    """Our core-only ismcts as an OpenSpiel bot: the hand equals the compiled core's hand."""
    needs_core("ismcts")
    from escoba_sim.native import core

    strategies = ["ismcts:iters=60", "greedy"]
    for g in range(4):
        state = play_through_openspiel(f"python_escoba(rules=ludoteka,dealer={g % 2})", strategies, 2, g)
        batch = core.play_hands(parse_rules("ludoteka"), strategies, 2, g, 1)
        assert list(batch.hands["total"][0]) == state.hand_result().total
        assert list(batch.hands["cards_taken"][0]) == state.hand_result().cards_taken


def _random_hands(rules: str, n: int, seed: int):
    """ActionHands at random points of random play (every phase), for encoding checks."""
    r = parse_rules(rules)
    rnd = random.Random(seed)
    for g in range(n):
        hand = ActionHand.deal(r, shuffled_deck(seed, g, 0), g % r.players)
        stop = rnd.randrange(60)
        for _ in range(stop):
            if hand.over:
                break
            hand.apply(rnd.choice(hand.legal_actions()))
        if not hand.over:
            yield hand


@pytest.mark.parametrize("rules", ["ludoteka", "tradicional", "cardgames", "robo(players=3)",
                                   "tradicional(hand_size=6,table_size=10)"])
def test_every_legal_move_has_exactly_one_action_sequence(rules):
    seen_phases = set()
    for hand in _random_hands(rules, 150, 3):
        if hand.phase == actions.TAKE_PHASE or (hand.phase == actions.BLOW and hand.chosen):
            continue  # a decision in progress: checked from its start
        seen_phases.add(hand.phase)
        if hand.phase == actions.BLOW:
            decisions = list(hand.candidates)
        else:
            decisions = hand.moves()
        sequences = set()
        for d in decisions:
            seq = hand.actions_for(d)
            sequences.add(tuple(seq))
            h = hand.copy()
            for a in seq:
                assert a in h.legal_actions()
                h.apply(a)
            if hand.phase == actions.BLOW:
                assert h.phase != actions.BLOW  # settled
                assert (h.st.moves[-1] == d) if d is not None else (len(h.st.moves) == len(hand.st.moves))
            else:
                assert h.st.moves[len(hand.st.moves)] == d
        assert len(sequences) == len(decisions)
    assert actions.CARD in seen_phases
    if parse_rules(rules).soplar:
        assert actions.BLOW in seen_phases


def test_illegal_actions_are_refused():
    hand = next(_random_hands("ludoteka", 1, 1))
    bad = next(a for a in range(actions.N_ACTIONS) if a not in hand.legal_actions())
    with pytest.raises(engine.IllegalMove, match="not legal"):
        hand.apply(bad)


@pytest.mark.parametrize("rules", ["ludoteka", "tradicional", "cardgames", "robo", "cardgames(players=4,teams=yes)"])
def test_resample_keeps_everything_the_player_knows(rules):
    """A resampled hand, dealt again from scratch from its own deck and replayed action by action,
    is legal throughout and gives the player the same information state (the capture=any inference
    that a lay means no hand card could capture included)."""
    game_string = f"python_escoba(rules={rules.split('(')[0]}" + (",players=4,teams=yes)" if "(" in rules else ")")
    game = pyspiel.load_game(game_string)
    rnd = random.Random(9)
    changed = 0
    for g in range(25):
        state = deal(game.new_initial_state(), shuffled_deck(9, g, 0))
        for _ in range(rnd.randrange(1, 40)):
            if state.is_terminal():
                break
            state.apply_action(rnd.choice(state.legal_actions()))
        if state.is_terminal():
            continue
        player = state.current_player()
        sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
        new = state.resample_from_infostate(player, sampler)
        assert new.information_state_string(player) == state.information_state_string(player)
        np.testing.assert_array_equal(new.information_state_tensor(player), state.information_state_tensor(player))
        assert new.legal_actions() == state.legal_actions()
        # the resampled deck, dealt again, accepts the same player actions
        replay = deal(game.new_initial_state(), new.hand.st.deck)
        for a in state.history()[40:]:
            assert a in replay.legal_actions()
            replay.apply_action(a)
        assert replay.information_state_string(player) == state.information_state_string(player)
        others = [h for s, h in enumerate(state.hand.st.hands) if s != player]
        changed += others != [h for s, h in enumerate(new.hand.st.hands) if s != player]
    assert changed >= 10


def test_openspiel_ismcts_bot_plays_a_hand():
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_escoba(rules=tradicional)")
    rs = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), uct_c=4.0, max_simulations=15, random_state=rs)
    other = StrategyBot("greedy", SplitMix64.for_hand(0, 0, 0, PLAY))
    state = deal(game.new_initial_state(), shuffled_deck(0, 0, 0))
    while not state.is_terminal():
        player = state.current_player()
        state.apply_action(bot.step(state) if player == 0 else other.step(state))
    assert sum(state.returns()) == 0
    assert state.returns() == hand_returns(game.rules, state.hand_result().total)


def test_observation_tensor_is_the_planes_of_actions():
    game = pyspiel.load_game("python_escoba(rules=ludoteka)")
    state = deal(game.new_initial_state(), shuffled_deck(4, 0, 0))
    for p in range(2):
        planes = np.zeros(actions.observation_size(game.rules), np.float32)
        state.hand.observation_planes(p, planes)
        np.testing.assert_array_equal(state.observation_tensor(p), planes)
        off = actions.observation_offsets(game.rules)
        hand = np.flatnonzero(planes[off["hand"]:off["hand"] + 40])
        assert list(hand) == state.hand.st.hands[p]
        assert planes[off["stock"]] == len(state.hand.st.stock)
        assert "hand:" in state.observation_string(p)
    # before the deal finishes every seat sees only its own dealt cards
    partial = game.new_initial_state()
    for c in shuffled_deck(4, 0, 0)[:3]:
        partial.apply_action(c)
    assert partial.observation_string(0) != partial.observation_string(1)


def test_seat_strategy_blows_like_the_engine():
    """SeatStrategy in a blow phase returns what the strategy's choose_blow does."""
    found = 0
    for hand in _random_hands("tradicional", 300, 5):
        if hand.phase != actions.BLOW or hand.chosen:
            continue
        found += 1
        decision = SeatStrategy("greedy").decide(hand, SplitMix64(1))
        blows = [m for m in hand.candidates if m is not None]
        assert decision == max(blows, key=greedy_key)
    assert found >= 3


def _yardstick(rows_path, *args):
    import subprocess
    import sys

    script = REPO / "analysis" / "openspiel_yardstick.py"
    out = subprocess.run([sys.executable, str(script), "--budgets", "3", "--opponents", "greedy",
                          "--rows", str(rows_path), *args], capture_output=True, text=True, timeout=600,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in rows_path.read_text().splitlines()]


def test_yardstick_script_pairs_deals(tmp_path):
    """analysis/openspiel_yardstick.py on a tiny budget: every deal played from both seats, the margin
    averaged per deal, and the summary equal to a recomputation from its own rows."""
    from escoba_sim.runs.stats import Z95

    rows_path = tmp_path / "y.jsonl"
    rows = _yardstick(rows_path, "--deals", "2")
    assert sorted((r["deal"], r["os_seat"]) for r in rows) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    numbers = json.loads(rows_path.with_suffix(".json").read_text())
    assert numbers["specs"] == {"greedy": "greedy"}  # the spec behind each label, for the README
    summary = numbers["rows"]
    assert len(summary) == 1 and summary[0]["deals"] == 2 and summary[0]["hands"] == 4
    per_deal = [np.mean([r["margin"] for r in rows if r["deal"] == d]) for d in (0, 1)]
    assert summary[0]["margin"] == pytest.approx(np.mean(per_deal))
    half = Z95 * np.std(per_deal, ddof=1) / np.sqrt(2)
    assert summary[0]["hi"] - summary[0]["margin"] == pytest.approx(half)
    assert summary[0]["os_moves"] == sum(r["os_steps"] for r in rows)


def test_yardstick_resumes_to_the_same_hands(tmp_path):
    """A run cut short (a half-written last line included) and resumed plays exactly the hands of an
    uninterrupted run: OpenSpiel's bot is seeded per hand, its resampler too."""
    whole = _yardstick(tmp_path / "whole.jsonl", "--deals", "3")
    cut = tmp_path / "cut.jsonl"
    _yardstick(cut, "--deals", "1")
    with cut.open("a") as f:
        f.write('{"budget": 3, "ours": "gre')  # a kill in the middle of a row
    resumed = _yardstick(cut, "--deals", "3")

    def key(rows):
        return sorted((r["deal"], r["os_seat"], r["margin"], r["os_steps"], r["our_steps"]) for r in rows)

    assert len(resumed) == len(whole) == 6
    assert key(resumed) == key(whole)
    table = json.loads(cut.with_suffix(".json").read_text())["rows"]
    assert table[0]["margin"] == json.loads((tmp_path / "whole.json").read_text())["rows"][0]["margin"]


def test_yardstick_ismcts_label_replays_its_saved_hands():
    """The yardstick's saved `ismcts` rows were played by the default of the time; its label is pinned to
    that search (openspiel_yardstick.SPECS), so replaying a saved hand gives the saved result, and a resumed
    run adds hands of the same strategy (the default has moved since)."""
    import sys

    needs_core("ismcts")
    analysis = REPO / "analysis"
    sys.path.insert(0, str(analysis))
    try:
        import openspiel_yardstick as y
    finally:
        sys.path.remove(str(analysis))
    saved = [r for r in y.load_rows() if r["ours"] == "ismcts" and r["budget"] == 30 and r["deal"] == 0]
    assert len(saved) == 2  # both seatings of deal 0
    game = pyspiel.load_game(f"python_escoba(rules={saved[0]['rules']})")
    for r in saved:
        again = y.play_hand(game, "ismcts", 30, r["seed"], 0, r["os_seat"])
        assert (again["margin"], again["os_steps"], again["our_steps"]) == (r["margin"], r["os_steps"],
                                                                            r["our_steps"])
