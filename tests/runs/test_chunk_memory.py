"""A chunk reuses the memory the previous chunk freed (runs.chunk.keep_freed_memory): no page faults per chunk."""

import json
import subprocess
import sys

import pytest

SCRIPT = """
import json, resource
from escoba_sim.runs.chunk import play_chunk
from escoba_sim.runs.spec import make_spec

spec = make_spec("greedy", ["maxoros"], None, 150_000, hands=True, seed=1, chunk_size=25_000)
play_chunk(spec, 0)  # the first chunk takes its memory from the system
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
hands = sum(int(play_chunk(spec, k)["hands"][0]) for k in range(1, spec.n_chunks))
print(json.dumps({"faults": resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before, "hands": hands}))
"""


@pytest.mark.core("the compiled core's batches")
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")
def test_chunks_after_the_first_take_no_memory_from_the_system():
    r = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True, timeout=120)
    got = json.loads(r.stdout)
    # glibc returned each chunk's memory to the system and faulted it in again: 40-60 faults per
    # 1,000 hands (about 6,000 here); kept, a few hundred at most (the interpreter's own)
    assert got["hands"] == 100_000 and got["faults"] < 1_000, got
