# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The compiled stepping loop of the vectorised environment (csrc/escoba_vec.h).

``VecCore`` owns N hands and the numpy buffers they are observed through;
``escoba_sim.env.vector.EscobaVectorEnv`` wraps it in Gymnasium's vector API.
The other seats' strategies are played inside the C loop, so one ``step``
call is one pass over the N hands without the GIL. In a thread that runs under a Stop (escoba_sim/stops.py),
the other seats' searches read it: a Stop set before or during ``reset`` or ``step`` ends them and the call
raises ``stops.Stopped`` (the hands were then played on by cut-short searches: reset before stepping again).
"""

from libc.stdint cimport uint8_t, uint64_t, int8_t, int64_t
from libc.stdlib cimport calloc, free

import numpy as np

from ._core.common cimport c_players, c_rules
from ._core.csrc cimport esc_hand, esc_init_tables, esc_player, esc_players_infer, esc_rules
from ._core.guard cimport attend, esc_stop_bind, esc_stop_flag_set, flag_address

from .stops import ATTENTION, Stopped, current_flag

cdef extern from "escoba_vec.h" nogil:
    int ESC_VEC_N_ACTIONS
    ctypedef struct esc_vec_env:
        esc_hand h
        uint64_t game
        float reward
    ctypedef struct esc_vec:
        esc_rules R
        esc_player players[6]
        int learner, n_envs, obs_size, infer
        uint64_t seed
        esc_vec_env *envs
    void esc_vec_init_tables()
    void esc_vec_layout(esc_vec *V)
    void esc_vec_reset_all(esc_vec *V, uint64_t first_game, int8_t *obs, int8_t *mask)
    int64_t esc_vec_step(esc_vec *V, const int64_t *actions, int8_t *obs, int8_t *mask, float *reward,
                         uint8_t *terminated)

if esc_init_tables() != 0:
    raise ImportError("escoba_sim._vec: capture lookup tables have an unexpected size")
esc_vec_init_tables()
attend(ATTENTION)
N_ACTIONS = ESC_VEC_N_ACTIONS


cdef class VecCore:
    """N hands of ``rules``: seat ``learner`` decides through actions, the others play ``strategies[seat]``."""

    cdef esc_vec V
    cdef readonly object obs, mask, reward, terminated

    def __cinit__(self, rules, strategies, int learner, int n_envs):
        if n_envs < 1:
            raise ValueError(f"n_envs must be at least 1, got {n_envs}")
        self.V.envs = NULL
        self.V.R = c_rules(rules)
        c_players(rules, strategies, self.V.players)
        self.V.learner = learner
        self.V.infer = esc_players_infer(self.V.players, self.V.R.players)
        self.V.n_envs = n_envs
        self.V.seed = 0
        esc_vec_layout(&self.V)
        self.V.envs = <esc_vec_env *> calloc(n_envs, sizeof(esc_vec_env))
        if self.V.envs == NULL:
            raise MemoryError(f"cannot allocate {n_envs} hands")
        self.obs = np.zeros((n_envs, self.V.obs_size), np.int8)
        self.mask = np.zeros((n_envs, ESC_VEC_N_ACTIONS), np.int8)
        self.reward = np.zeros(n_envs, np.float32)
        self.terminated = np.zeros(n_envs, np.bool_)

    def __dealloc__(self):
        free(self.V.envs)

    @property
    def obs_size(self):
        return self.V.obs_size

    def reset(self, seed, first_game=0):
        """Deal game ``first_game + i`` of ``seed`` to env i and play the other seats up to the learner."""
        cdef int8_t[:, ::1] o = self.obs
        cdef int8_t[:, ::1] m = self.mask
        cdef uint64_t g = first_game
        self.V.seed = seed
        flag = current_flag()  # kept referenced while the searches read it
        cdef const int *fp = flag_address(flag)
        if esc_stop_flag_set(fp):
            raise Stopped()
        cdef const int *prev = esc_stop_bind(fp)
        with nogil:
            esc_vec_reset_all(&self.V, g, &o[0, 0], &m[0, 0])
        esc_stop_bind(prev)
        if esc_stop_flag_set(fp):
            raise Stopped()
        self.reward[:] = 0
        self.terminated[:] = False

    def step(self, actions):
        """Apply one action per env; returns -1, or the index of an env whose action is illegal (nothing moved)."""
        cdef int64_t[::1] a = np.ascontiguousarray(actions, dtype=np.int64)
        if a.shape[0] != self.V.n_envs:
            raise ValueError(f"expected {self.V.n_envs} actions, got {a.shape[0]}")
        cdef int8_t[:, ::1] o = self.obs
        cdef int8_t[:, ::1] m = self.mask
        cdef float[::1] r = self.reward
        cdef uint8_t[::1] t = self.terminated.view(np.uint8)
        cdef int64_t bad
        flag = current_flag()  # kept referenced while the searches read it
        cdef const int *fp = flag_address(flag)
        if esc_stop_flag_set(fp):
            raise Stopped()
        cdef const int *prev = esc_stop_bind(fp)
        with nogil:
            bad = esc_vec_step(&self.V, &a[0], &o[0, 0], &m[0, 0], &r[0], &t[0])
        esc_stop_bind(prev)
        if esc_stop_flag_set(fp):
            raise Stopped()
        return bad

    def games(self):
        """The game index each env is playing (its deck is rng.shuffled_deck(seed, game, 0))."""
        return np.array([self.V.envs[i].game for i in range(self.V.n_envs)], np.uint64)
