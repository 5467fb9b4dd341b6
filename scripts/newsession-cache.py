#!/usr/bin/env python3
"""newsession-cache.py — what a new session costs on the real Ollama (issue 40).

One-shot chats in a row (`echo QUESTION | agent chat --json`, each a new
process and a new session, the way scripts use the tool), against a running
Ollama v0.9.6 that logs at trace level (OLLAMA_DEBUG=2, scripts/ollama.sh).
For chats 2..N, what the model evaluated against its own cold evaluation:
the runner's "loading cache slot" line says how many of the prompt's tokens
were evaluated (remaining) and how many it has (prompt, which is also the
chat's prompt_eval_count: a cold evaluation evaluates them all).

Beside each, the floor computed the same way: the same request with only
the question differing from the chat before — the previous chat's rendered
prompt up to where its user message begins, then this chat's user message
(the question with its context: its time, the session's opening, its
recalled memory, none of which an earlier request can hold) and what the
template prints after it. It is sent raw (/api/generate) with the cache
holding the previous chat's prompt, as the chat was; the previous prompt is
sent again before and the chat's own after, so that every chat and every
floor finds the cache as the chat before it left it.

Usage: newsession-cache.py AGENT HOME MODEL SERVE_LOG CHATS WAIT
(WAIT: the chats that start in a minute of their own: "all" (every one
after the first), "none", or their numbers, "3" or "2,4". They do not wait
for the minute to turn: from the first of them on, the chats run with
AGENT_TEST_NOW a minute ahead each time, the clock they read moving to one
second into its next minute, as if they had waited (issue 51).)
Environment: OLLAMA_HOST, AGENT_NUM_CTX. Prints one line per chat from the
second, "k remaining prompt floor_remaining floor_prompt", then "mean SHARE
FLOOR" (the means of remaining/prompt and of the floor's), on stdout;
progress on stderr.
"""
import ast
import datetime
import json
import os
import re
import subprocess
import sys
import time
import urllib.request

agent, home, model, log, chats, wait = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6]
waits = set(range(2, chats + 1)) if wait == "all" else set() if wait == "none" else {int(w) for w in wait.split(",")}
host, num_ctx = os.environ["OLLAMA_HOST"], int(os.environ.get("AGENT_NUM_CTX", "8192"))
questions = ["what do my notes say about the trip?", "when does the plumber come?", "where does Ana live?",
             "what did I plant in the garden?", "anything else about the boiler?", "who visits in January?"]
SLOT = re.compile(r'msg="loading cache slot".* prompt=(\d+) used=(\d+) remaining=(\d+)')


def log_size():
    return os.path.getsize(log)


def since(offset):
    """The server's log lines written after offset: the requests' prompts as
    rendered, and what each evaluated of its prompt."""
    with open(log, encoding="utf-8", errors="replace") as f:
        f.seek(offset)
        lines = f.read().splitlines()
    prompts = [ast.literal_eval(l[l.index(' prompt="') + 8:]) for l in lines
               if 'msg="completion request"' in l and ' prompt="' in l]
    slots = [tuple(int(g) for g in m.groups()) for m in map(SLOT.search, lines) if m]
    return prompts, slots


def raw(prompt):
    """Sends prompt as it is; returns (prompt tokens, tokens evaluated)."""
    at = log_size()
    body = json.dumps({"model": model, "prompt": prompt, "raw": True, "stream": False,
                       "options": {"num_ctx": num_ctx, "num_predict": 1}, "keep_alive": "10m"}).encode()
    req = urllib.request.Request("http://%s/api/generate" % host, body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=600) as r:
        json.load(r)
    _, slots = since(at)
    return slots[-1][0], slots[-1][2]


def chat(question):
    """One one-shot chat; returns (its rendered prompt, prompt tokens,
    tokens evaluated, prompt_eval_count)."""
    at = log_size()
    out = subprocess.run([agent, "--home", home, "--model", model, "chat", "--json"], input=question + "\n",
                         capture_output=True, text=True, check=True, env=chat_env()).stdout
    prompts, slots = since(at)
    return prompts[-1], slots[-1][0], slots[-1][2], json.loads(out)["prompt_eval_count"]


def sent(prompt):
    """The chat's time note, "[sent Mon 2 Jan 2006 15:04]"."""
    return prompt[user_start(prompt):prompt.index("]", user_start(prompt)) + 1]


def user_start(prompt):
    """Where the chat's user message begins in its rendered prompt (a
    one-shot chat has one): its time note, the first thing of its context."""
    return prompt.index("[sent ")


ahead = 0.0  # seconds the chats' clock runs ahead of the system's


def next_minute():
    """Moves the chats' clock to one second into its next minute."""
    global ahead
    now = time.time() + ahead
    ahead += 61 - now % 60


def chat_env():
    if not ahead:
        return None
    at = datetime.datetime.fromtimestamp(time.time() + ahead).astimezone()
    return dict(os.environ, AGENT_TEST_NOW=at.isoformat(timespec="seconds"))


prev = None
shares, floors = [], []
for k in range(1, chats + 1):
    q = "chat %d: %s" % (k, questions[(k - 1) % len(questions)])
    if k in waits:
        next_minute()
    prompt, n, evaluated, pec = chat(q)
    if k in waits and prev is not None and sent(prompt) == sent(prev):
        sys.exit("newsession-cache: chat %d was to start in a minute of its own, but was sent at %s as chat %d was"
                 % (k, sent(prompt), k - 1))
    if n != pec:
        print("newsession-cache: chat %d: the runner counted %d prompt tokens, prompt_eval_count %d" % (k, n, pec), file=sys.stderr)
    if prev is not None:
        floor_prompt = prev[:user_start(prev)] + prompt[user_start(prompt):]
        raw(prev)
        fn, fe = raw(floor_prompt)
        raw(prompt)  # the cache as the chat left it, for the next
        print("%d %d %d %d %d" % (k, evaluated, n, fe, fn))
        shares.append(evaluated / n)
        floors.append(fe / fn)
    print("newsession-cache: %s chat %d: %d of %d prompt tokens evaluated" % (model, k, evaluated, n), file=sys.stderr)
    prev = prompt
print("mean %.4f %.4f" % (sum(shares) / len(shares), sum(floors) / len(floors)))
