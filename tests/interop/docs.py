"""Writes the interop documents: small, seeded, of the shapes of the public
documents JSON parser benchmarks use (no data is downloaded and none is
personal: every name, id and text is made up here).

    python3 docs.py OUTDIR

| file | shape of |
|---|---|
| search.json | a social network's search results (statuses, users, entities, nullable replies) |
| tickets.json | an event-ticketing catalog keyed by id (maps of id -> record / string) |
| events.json | a page of a code host's events API (an array of events, payloads that vary) |
| jobs.json | a CI server's job list (classes, colours, views) |
| plugins.json | a plugin update centre (plugins keyed by name, optional e-mails) |
| mesh.json | a 3-D mesh (long arrays of doubles and ints, empty arrays) |
| rpc.json | JSON-RPC results (mixed int/decimal numbers, nested logs, a null error) |
| numbers.json | an array of numbers |
"""

import json
import random
import sys

R = random.Random(25)


def word(n=6):
    return "".join(R.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n))


def text():
    parts = [word(R.randint(2, 8)) for _ in range(R.randint(3, 9))]
    if R.random() < 0.3:
        parts.append("日本語")
    if R.random() < 0.2:
        parts.append("\"quoted\" \\ 🦀")
    return " ".join(parts)


def user(i):
    return {
        "id": 1000000000 + i * 7919,
        "id_str": str(1000000000 + i * 7919),
        "name": word(8).title(),
        "screen_name": word(10),
        "description": text(),
        "url": None if R.random() < 0.5 else "https://example.com/" + word(),
        "followers_count": R.randint(0, 100000),
        "verified": R.random() < 0.1,
        "utc_offset": None if R.random() < 0.4 else R.choice([-18000, 3600, 32400]),
    }


def search():
    statuses = []
    for i in range(12):
        reply = R.random() < 0.3
        statuses.append({
            "created_at": "Sun Aug 31 00:29:%02d +0000 2014" % i,
            "id": 505874924095815681 + i,
            "id_str": str(505874924095815681 + i),
            "text": text(),
            "truncated": False,
            "entities": {
                "hashtags": [{"text": word(), "indices": [R.randint(0, 40), R.randint(41, 80)]} for _ in range(R.randint(0, 2))],
                "urls": [],
                "user_mentions": [{"screen_name": word(), "id": R.randint(1, 2**40), "indices": [0, 9]} for _ in range(R.randint(0, 2))],
            },
            "in_reply_to_status_id": R.randint(1, 2**62) if reply else None,
            "in_reply_to_screen_name": word() if reply else None,
            "user": user(i),
            "geo": None,
            "retweet_count": R.randint(0, 500),
            "favorited": False,
            "lang": R.choice(["ja", "en", "es"]),
        })
    return {
        "statuses": statuses,
        "search_metadata": {
            "completed_in": 0.087,
            "max_id": 505874924095815681,
            "query": "%E4%B8%80",
            "count": 12,
            "next_results": "?max_id=505874847260352512&q=x&count=12",
        },
    }


def tickets():
    areas = {str(205705993 + i): word(10) for i in range(30)}
    topics = {str(107888604 + i): word(9) for i in range(8)}
    events = {}
    for i in range(20):
        eid = 138586341 + i * 13
        events[str(eid)] = {
            "description": None,
            "id": eid,
            "logo": None if R.random() < 0.6 else "/images/UE0AAAAACEKo6QAAAAZDSVRN",
            "name": text(),
            "subTopicIds": [337184269 + j for j in range(R.randint(0, 4))],
            "subjectCode": None,
            "subtitle": None,
            "topicIds": [324846099 + j for j in range(R.randint(1, 3))],
        }
    performances = []
    for i in range(10):
        performances.append({
            "eventId": 138586341 + i * 13,
            "id": 339887544 + i,
            "logo": None,
            "name": None,
            "prices": [{"amount": R.choice([90250, 66500, 28500]), "audienceSubCategoryId": 337100890, "seatCategoryId": 338937295 + j} for j in range(R.randint(1, 3))],
            "seatCategories": [{"areas": [{"areaId": 205705999 + k, "blockIds": []} for k in range(R.randint(1, 3))], "seatCategoryId": 338937295}],
            "seatMapImage": None,
            "start": 1372701600000 + i * 86400000,
            "venueCode": "PLEYEL_PLEYEL",
        })
    return {
        "areaNames": areas,
        "audienceSubCategoryNames": {"337100890": "Abonné"},
        "blockNames": {},
        "events": events,
        "performances": performances,
        "topicNames": topics,
        "venueNames": {"PLEYEL_PLEYEL": "Salle Pleyel"},
    }


def events():
    out = []
    for i in range(15):
        kind = R.choice(["PushEvent", "WatchEvent", "CreateEvent"])
        if kind == "PushEvent":
            payload = {
                "push_id": 134107894 + i,
                "size": 1,
                "distinct_size": 1,
                "ref": "refs/heads/main",
                "head": "%040x" % R.getrandbits(160),
                "before": "%040x" % R.getrandbits(160),
                "commits": [{"sha": "%040x" % R.getrandbits(160), "author": {"email": word() + "@example.com", "name": word()}, "message": text(), "distinct": True, "url": "https://api.example.com/c/" + word()}],
            }
        elif kind == "WatchEvent":
            payload = {"action": "started"}
        else:
            payload = {"ref": None, "ref_type": "repository", "master_branch": "main", "description": text()}
        event = {
            "type": kind,
            "created_at": "2013-01-10T07:%02d:00Z" % i,
            "actor": {"gravatar_id": "", "login": word(), "avatar_url": "https://example.com/a/" + word(), "url": "https://api.example.com/users/" + word(), "id": R.randint(1, 10**7)},
            "repo": {"id": R.randint(1, 10**7), "url": "https://api.example.com/repos/" + word(), "name": word() + "/" + word()},
            "public": True,
            "payload": payload,
            "id": str(1652857722 + i),
        }
        if R.random() < 0.3:
            event["org"] = {"gravatar_id": "", "login": word(), "avatar_url": "https://example.com/o", "url": "https://api.example.com/orgs/x", "id": 1}
        out.append(event)
    return out


def jobs():
    return {
        "_class": "hudson.model.Hudson",
        "assignedLabels": [{"name": "master"}],
        "mode": "NORMAL",
        "nodeDescription": "the master Jenkins node",
        "nodeName": "",
        "numExecutors": 2,
        "description": None,
        "jobs": [{"_class": "hudson.model.FreeStyleProject", "name": "job-%d" % i, "url": "http://ci.example.com/job/job-%d/" % i, "color": R.choice(["blue", "red", "notbuilt", "disabled", "blue_anime"])} for i in range(25)],
        "primaryView": {"_class": "hudson.model.AllView", "name": "all", "url": "http://ci.example.com/"},
        "quietingDown": False,
        "slaveAgentPort": 50000,
        "useCrumbs": True,
        "useSecurity": True,
        "views": [{"_class": "hudson.model.AllView", "name": "all", "url": "http://ci.example.com/"}],
    }


def plugins():
    ps = {}
    for i in range(15):
        name = word(R.randint(3, 10)) + "-plugin"
        developers = []
        for _ in range(R.randint(1, 2)):
            d = {"developerId": word(), "name": word(8).title()}
            if R.random() < 0.5:
                d["email"] = word() + "@example.org"
            developers.append(d)
        ps[name] = {
            "buildDate": "Mar 03, 2011",
            "dependencies": [{"name": word() + "-plugin", "optional": R.random() < 0.3, "version": "1.%d" % R.randint(0, 20)} for _ in range(R.randint(0, 3))],
            "developers": developers,
            "excerpt": text(),
            "gav": "org.example.plugins:%s:1.%d" % (name, i),
            "labels": [R.choice(["builder", "scm", "report", "ui"]) for _ in range(R.randint(0, 2))],
            "name": name,
            "popularity": R.randint(0, 200000),
            "releaseTimestamp": "2011-03-03T18:49:24.00Z",
            "requiredCore": "1.%d" % R.randint(300, 600),
            "scm": "github.com",
            "sha1": word(27),
            "title": word(8).title(),
            "url": "https://updates.example.org/download/plugins/%s/1.%d/%s.hpi" % (name, i, name),
            "version": "1.%d" % i,
            "wiki": "https://plugins.example.org/" + name,
        }
    return {
        "connectionCheckUrl": "http://www.example.com/",
        "core": {"buildDate": "Dec 31, 1969", "name": "core", "sha1": word(27), "url": "https://updates.example.org/core.war", "version": "1.0"},
        "id": "default",
        "plugins": ps,
        "updateCenterVersion": "1",
    }


def mesh():
    n = 300
    return {
        "batches": [{"indexRange": [0, n], "vertexRange": [0, n // 3], "usesVColors": False, "isSkinned": False, "boneIndices": [], "boneWeights": []}],
        "morphTargets": [],
        "positions": [round(R.uniform(-50, 50), 6) for _ in range(n)],
        "tex0": [round(R.uniform(0, 1), 6) for _ in range(2 * n // 3)],
        "normals": [R.choice([0.0, 1.0, -1.0, 0.5773502691896258]) for _ in range(n)],
        "indices": [R.randint(0, n // 3 - 1) for _ in range(n)],
        "influences": [],
        "colors": [],
    }


def rpc():
    results = []
    for i in range(10):
        results.append({
            "hash": "0x%064x" % R.getrandbits(256),
            "blockNumber": 5000000 + i,
            "gasUsed": R.choice([21000, 53000, 120000]),
            "gasPrice": R.choice([1.5, 2, 20.25, 3]),
            "from": "0x%040x" % R.getrandbits(160),
            "to": None if R.random() < 0.2 else "0x%040x" % R.getrandbits(160),
            "value": R.choice([0, 10**18, 2**63 - 1]),
            "logs": [{"address": "0x%040x" % R.getrandbits(160), "topics": ["0x%064x" % R.getrandbits(256) for _ in range(R.randint(1, 3))], "logIndex": j, "removed": False} for j in range(R.randint(0, 3))],
            "status": R.choice([0, 1]),
        })
    return {"jsonrpc": "2.0", "id": 67, "result": results, "error": None}


def numbers():
    out = []
    for i in range(500):
        out.append(R.choice([R.randint(-10**6, 10**6), round(R.uniform(-1e6, 1e6), 3), R.uniform(-1, 1) * 10 ** R.randint(-300, 300)]))
    return out


DOCS = {
    "search": search,
    "tickets": tickets,
    "events": events,
    "jobs": jobs,
    "plugins": plugins,
    "mesh": mesh,
    "rpc": rpc,
    "numbers": numbers,
}


if __name__ == "__main__":
    out = sys.argv[1]
    for name, make in DOCS.items():
        with open("%s/%s.json" % (out, name), "w", encoding="utf-8") as f:
            json.dump(make(), f, ensure_ascii=False, indent=1)
