"""The fault drill's traffic (scripts/chaos.py): the clients that browse and the members who
sign in, follow and write while the dependencies fail, and what they record (every answer, and
each write answered done or refused, for the drill's exactly-once check)."""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field

import httpx
from chaos_figures import Sample

# Requests are marked HTTPS, as the proxy in front would.
PROXY_HEADERS = {"X-Forwarded-Proto": "https"}
# The seeded members' password, new for each drill.
PASSWORD = "chaos-drill-password-" + secrets.token_hex(4)


@dataclass
class Recorder:
    samples: list[Sample] = field(default_factory=list)
    follows_done: set[tuple[int, int]] = field(default_factory=set)
    # Messages by their text (each text is sent once): answered done (302), or answered
    # anything else (503, no answer), which must then not be stored.
    messages_done: set[str] = field(default_factory=set)
    messages_refused: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, status: int) -> None:
        with self.lock:
            self.samples.append(Sample(time.monotonic(), kind, status))


class Visitor:
    """One connection; cookies kept by hand (the production settings mark them Secure and the
    loopback connection is plain HTTP: the proxy's job)."""

    def __init__(self, base: str, recorder: Recorder) -> None:
        self.base = base
        self.origin = "https://" + base.split("://", 1)[1]
        self.client = httpx.Client(base_url=base, timeout=30, follow_redirects=False)
        self.cookies: dict[str, str] = {}
        self.recorder = recorder

    def send(self, kind: str, method: str, path: str, data: dict | None = None) -> int:
        headers = {**PROXY_HEADERS}
        if method == "POST":
            headers.update({"Origin": self.origin, "Referer": f"{self.origin}{path}"})
            data = {**(data or {}), "csrfmiddlewaretoken": self.cookies.get("csrftoken", "")}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        try:
            response = self.client.request(method, path, headers=headers, data=data)
        except httpx.HTTPError:
            self.recorder.add(kind, 0)
            return 0
        for name, value in response.cookies.items():
            self.cookies[name] = value
        self.recorder.add(kind, response.status_code)
        return response.status_code

    def sign_in(self, email: str) -> bool:
        self.send("sign-in page", "GET", "/accounts/login/")
        status = self.send(
            "sign-in", "POST", "/accounts/login/", {"login": email, "password": PASSWORD}
        )
        return status == 302 and "sessionid" in self.cookies


def browse(visitor: Visitor, seed: dict, until: float, offset: int) -> None:
    researchers = seed["researchers"]
    paths = [("home", "/"), ("search", "/search/?q=Chaos"), ("api list", "/api/v1/researchers/")]
    paths += [("api list", "/api/v1/works/"), ("readyz", "/readyz")]
    for researcher in researchers:
        paths += [("profile", f"/researchers/{researcher['slug']}/")]
        paths += [("work", f"/works/{researcher['work']}/")]
    step = offset
    while time.monotonic() < until:
        kind, path = paths[step % len(paths)]
        visitor.send(kind, "GET", path)
        step += 1


def member_journey(base: str, recorder: Recorder, seed: dict, member: dict, until: float) -> None:
    """Sign in (again after each failure), follow every researcher in turn, write in the
    member's conversation, read one's account page. A follow answered 302 is a write that must
    be there once; one refused (503) or unanswered is tried again (following twice is one
    follow). A message answered 302 must be there once; one answered anything else must not be
    there at all, and the next message has a new text (a resent text could be a double)."""
    visitor = Visitor(base, recorder)
    owed = [researcher for researcher in seed["researchers"]]
    signed_in = False
    sent = 0
    while time.monotonic() < until:
        if not signed_in:
            visitor.cookies.clear()
            signed_in = visitor.sign_in(member["email"])
            continue
        status = visitor.send("account", "GET", "/account/")
        if status == 302:  # signed out: a lost session
            signed_in = False
            continue
        if member.get("conversation"):
            text = f"chaos message {member['id']}-{sent}"
            sent += 1
            status = visitor.send(
                "message",
                "POST",
                f"/inbox/conversations/{member['conversation']}/send/",
                {"body": text},
            )
            with recorder.lock:
                (recorder.messages_done if status == 302 else recorder.messages_refused).add(text)
        if not owed:
            continue
        researcher = owed[0]
        status = visitor.send("follow", "POST", f"/researchers/{researcher['slug']}/follow/")
        if status == 302:
            with recorder.lock:
                recorder.follows_done.add((member["id"], researcher["id"]))
            owed.pop(0)
