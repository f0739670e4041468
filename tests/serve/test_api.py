"""``braincards serve``'s API: a full game of each title, replays that rebuild the live game
at every step, and every bad request refused with a 4xx that leaves the game unchanged."""

from __future__ import annotations

import pytest

from braincards.envs import get_spec
from braincards.envs.brilliant_boar.cards import MOTIFS
from braincards.training.evaluation.replay import read_replay, replay_env, replay_states

TITLES = [
    ("the_brain", {"num_players": 1}, ["human"]),
    ("the_brain", {"num_players": 3}, ["heuristic", "human", "greedy"]),
    ("oh_my_brain", {"num_players": 2}, ["human", "heuristic"]),
    ("brilliant_boar", {"num_players": 2}, ["heuristic", "human"]),
]


def new_game(client, game, options, seats, seed=7):
    r = client.post("/api/games", json={"game": game, "options": options, "seats": seats, "seed": seed})
    assert r.status_code == 201, r.text
    return r.json()["id"], r.json()["view"]


def play_out(client, gid, view, on_step=None, pick=lambda moves: moves[-1]["action"]):
    """Play a game to its end through the API; the person picks with ``pick``."""
    while not view["over"]:
        if view["agents_turn"]:
            assert view["moves"] == []  # an agent's turn shows the person no moves
            r = client.post(f"/api/games/{gid}/advance", json={"step": view["step"]})
        else:
            assert view["moves"], "the person's turn lists their legal moves"
            r = client.post(f"/api/games/{gid}/move", json={"step": view["step"], "action": pick(view["moves"])})
        assert r.status_code == 200, r.text
        assert r.json()["step"] == view["step"] + 1
        view = r.json()
        if on_step is not None:
            on_step(view)
    return view


@pytest.mark.parametrize("game,options,seats", TITLES, ids=lambda x: str(x))
def test_a_full_game_of_each_title_through_the_api(client, app, game, options, seats):
    gid, view = new_game(client, game, options, seats)
    assert view["you"] == f"player_{seats.index('human')}"
    lives = []
    session = app.state.store.get(gid)

    def keep(view):
        lives.append(session.raw.state.to_dict())
        assert view["log"], "the last moves are told in words"

    final = play_out(client, gid, view, on_step=keep)
    assert final["result"]["length"] == final["step"] == len(lives)
    spec = get_spec(game)
    assert final["result"]["scores"] == [float(x) for x in spec.scores(session.raw.state)]
    # the replay was written when the game ended, and rebuilds the live game at every step
    replay = read_replay(app.state.store.replay_dir / final["replay"])
    assert replay["header"]["seats"] == seats and replay["result"]["scores"] == final["result"]["scores"]
    states = list(replay_states(replay))
    assert states[1:] == lives
    assert spec.scores(replay_env(replay).state) == spec.scores(session.raw.state)


def test_seats_may_all_be_agents_and_the_watcher_sees_everything(client):
    gid, view = new_game(client, "oh_my_brain", {"num_players": 2}, ["heuristic", "random"])
    assert view["you"] is None and view["agents_turn"]
    assert not any("hidden" in line for line in view["table"])
    assert play_out(client, gid, view)["over"]


def test_the_replay_viewer_steps_through_any_seat_and_the_omniscient_view(client):
    gid, view = new_game(client, "the_brain", {"num_players": 3}, ["human", "heuristic", "heuristic"])
    final = play_out(client, gid, view)
    listed = client.get("/api/replays").json()["replays"]
    assert [r["name"] for r in listed] == [final["replay"]]
    text = client.get(f"/api/replays/{final['replay']}").text
    omni = client.post("/api/replay-view", json={"replay": text, "step": 3}).json()
    seat = client.post("/api/replay-view", json={"replay": text, "step": 3, "viewer": "player_1"}).json()
    assert omni["total"] == final["step"] and omni["step"] == 3 and len(omni["log"]) == 3
    assert not any("hidden" in line for line in omni["table"])
    assert any("hidden" in line for line in seat["table"])
    end = client.post("/api/replay-view", json={"replay": text, "step": omni["total"]}).json()
    assert end["over"] and end["result"]["scores"] == final["result"]["scores"]


def _bad_requests(gid, view):
    """(method, path, body, status) of bad requests against a game at the person's turn."""
    legal = {m["action"] for m in view["moves"]}
    illegal = next(a for a in range(1000) if a not in legal)
    step, good = view["step"], view["moves"][0]["action"]
    base = f"/api/games/{gid}"
    return [
        ("post", f"{base}/move", {"action": illegal, "step": step}, 422),  # illegal action
        ("post", f"{base}/move", {"action": -1, "step": step}, 422),
        ("post", f"{base}/move", {"action": good, "step": step - 1}, 409),  # stale (double click)
        ("post", f"{base}/move", {"action": good, "step": step + 5}, 409),
        ("post", f"{base}/advance", {"step": step}, 409),  # an agent's move at the person's turn
        ("post", f"{base}/move", {"action": str(good), "step": step}, 422),  # malformed bodies
        ("post", f"{base}/move", {"action": True, "step": step}, 422),
        ("post", f"{base}/move", {"action": 1.5, "step": step}, 422),
        ("post", f"{base}/move", {"step": step}, 422),
        ("post", f"{base}/move", {"action": good, "step": step, "seat": "player_1"}, 422),
        ("post", f"{base}/move", [good, step], 422),
        ("raw", f"{base}/move", b"{not json", 422),
        ("post", "/api/games/not-a-game-id/move", {"action": good, "step": step}, 404),
        ("get", f"{base}x", None, 404),
        ("get", "/api/replays/..%2Fsecret.jsonl", None, 404),
        ("get", "/api/replays/nothing.jsonl", None, 404),
        ("post", "/api/replay-view", {"replay": "not a replay", "step": 0}, 422),
        ("post", "/api/study/start", {"participant": "p1"}, 404),  # no study running
    ]


def test_every_bad_request_is_a_4xx_and_leaves_the_game_unchanged(client):
    gid, view = new_game(client, "the_brain", {"num_players": 2}, ["human", "heuristic"], seed=3)
    while view["agents_turn"]:
        view = client.post(f"/api/games/{gid}/advance", json={"step": view["step"]}).json()
    before = client.get(f"/api/games/{gid}").content
    for method, path, body, status in _bad_requests(gid, view):
        if method == "raw":
            r = client.post(path, content=body, headers={"Content-Type": "application/json"})
        else:
            r = getattr(client, method)(path, **({} if body is None else {"json": body}))
        assert r.status_code == status, (path, body, r.text)
        assert r.json().get("detail"), "every refusal says why"
        assert client.get(f"/api/games/{gid}").content == before, (path, body)
    # the game still plays on from where it was
    r = client.post(f"/api/games/{gid}/move", json={"action": view["moves"][0]["action"], "step": view["step"]})
    assert r.status_code == 200 and r.json()["step"] == view["step"] + 1


@pytest.mark.parametrize("body", [
    {"game": "chess", "options": {}, "seats": ["human", "random"]},
    {"game": "the_brain", "options": {"num_players": 9}, "seats": ["human"] * 9},
    {"game": "the_brain", "options": {"difficulty": "nope"}, "seats": ["human", "random", "random"]},
    {"game": "the_brain", "options": {"colour": 1}, "seats": ["human", "random", "random"]},
    {"game": "the_brain", "options": {"num_players": 2}, "seats": ["human"]},
    {"game": "the_brain", "options": {"num_players": 2}, "seats": ["human", "human"]},
    {"game": "the_brain", "options": {"num_players": 2}, "seats": ["human", "no_such_policy"]},
    {"game": "oh_my_brain", "options": {"num_players": 2}, "seats": ["human", "pimc"]},
    {"game": "the_brain", "options": {"num_players": 2}, "seats": ["human", "random"], "seed": -1},
    {"game": "the_brain", "seats": ["human", ""], "options": {"num_players": 2}},
], ids=range(10))
def test_a_bad_new_game_is_refused_and_creates_nothing(client, app, body):
    r = client.post("/api/games", json=body)
    assert 400 <= r.status_code < 500 and r.json()["detail"], r.text
    assert len(app.state.store._games) == 0


def test_game_ids_are_unguessable_tokens(client):
    ids = {new_game(client, "the_brain", {"num_players": 1}, ["human"], seed=s)[0] for s in range(5)}
    assert len(ids) == 5 and all(len(i) >= 24 for i in ids)


def test_a_checkpoint_seat_brings_its_own_table_unless_the_page_set_one(client, app):
    """Quiet defaults: with no option set but the player count, the game takes the options its
    checkpoint was trained with, and the page says so; with other options set, the page (not
    the server's log) says once that the checkpoint plays away from its table."""
    seats = ["human", "the_brain/ppo_3p", "the_brain/ppo_3p"]
    gid, view = new_game(client, "the_brain", {"num_players": 3}, seats)
    assert app.state.store.get(gid).config["difficulty"] == "robber"
    assert view["notes"] == ["the table takes the options the_brain/ppo_3p was trained with "
                             "(difficulty='robber'); set table options to choose others"]
    gid, view = new_game(client, "the_brain", {"num_players": 3, "difficulty": "amateur"}, seats)
    assert app.state.store.get(gid).config["difficulty"] == "amateur"
    assert view["notes"] == ["checkpoint the_brain/ppo_3p was trained for other options than this table's: "
                             "difficulty: trained 'robber', here 'amateur'"]
    assert len(client.get(f"/api/games/{gid}").json()["notes"]) == 1  # every view of the game keeps it
    _, view = new_game(client, "the_brain", {"num_players": 3}, ["human", "heuristic", "greedy"])
    assert view["notes"] == []


@pytest.mark.parametrize("memory, shows", [("none", False), ("perfect", True)])
def test_a_boar_log_keeps_no_drawn_motif_when_memory_is_none(client, memory, shows):
    """R-W3: with memory="none" a player sees a drawn card once; the page's log must not
    become the written memory aid the rules forbid (it named every drawn motif)."""
    r = client.post("/api/games", json={"game": "brilliant_boar", "seats": ["random", "random"],
                                        "options": {"num_players": 2, "memory": memory}, "seed": 3})
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    view = client.get(f"/api/games/{gid}").json()
    for _ in range(12):
        view = client.post(f"/api/games/{gid}/advance", json={"step": view["step"]}).json()
    draws = [line for line in view["log"] if "draw the pile's top card" in line]
    assert draws
    named = [line for line in draws if any(f"({m})" in line for m in MOTIFS)]
    assert bool(named) == shows, draws


@pytest.mark.parametrize("game, options, words", [
    ("the_brain", {"num_players": 2}, ("the loss limit", "Every card was played out")),
    ("oh_my_brain", {"num_players": 2}, ("reached 0 brains",)),
    ("brilliant_boar", {"num_players": 2}, ("The pile is empty",)),
])
def test_a_finished_game_says_why_it_ended(client, game, options, words):
    """The result screen says why the game ended (it said only LOST), with the page's seat names."""
    r = client.post("/api/games", json={"game": game, "seats": ["random", "heuristic"], "options": options, "seed": 5})
    gid = r.json()["id"]
    view = client.get(f"/api/games/{gid}").json()
    assert "end_reason" not in view
    while not view["over"]:
        view = client.post(f"/api/games/{gid}/advance", json={"step": view["step"]}).json()
    reason = view["end_reason"]
    assert any(w in reason for w in words), reason
    assert "player_" not in reason  # the seats' page names, not the env's agent names
    replay = client.get(f"/api/replays/{view['replay']}").text
    seen = client.post("/api/replay-view", json={"replay": replay, "step": view["step"], "viewer": None}).json()
    assert any(w in seen["end_reason"] for w in words)  # the replay viewer says it too, with its labels


def test_seats_are_labelled_you_and_partner_k_so_two_of_one_policy_differ(client):
    def labels(game, seats, players):
        r = client.post("/api/games", json={"game": game, "seats": seats, "options": {"num_players": players}, "seed": 1})
        return [s["label"] for s in client.get(f"/api/games/{r.json()['id']}").json()["seats"]]

    assert labels("the_brain", ["human", "heuristic", "heuristic"], 3) == [
        "you", "partner 1 (heuristic)", "partner 2 (heuristic)"]
    assert labels("oh_my_brain", ["random", "human"], 2) == ["opponent 1 (random)", "you"]
    assert labels("the_brain", ["greedy", "greedy"], 2) == ["seat 1 (greedy)", "seat 2 (greedy)"]
