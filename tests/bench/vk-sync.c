/* gst-avhw benchmark helper: vk-time's view of timeline semaphores and
 * queries, for a stalled process (VK_TIME_SYNC=1).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * vk-time.c tells this file of every queue submission, host signal,
 * timeline semaphore made or destroyed, and query reset or begun in a
 * command buffer. It keeps, per timeline semaphore, the highest value a
 * submission waits for and the highest one a submission (or the host)
 * signals; per query, whether the last command recorded for it was a reset
 * or a begin. On SIGUSR2 (vk_sync_dump(), called by vk-time after its
 * pending calls) it prints
 *
 *   VK-SEM sem=S counter=C waited=W signalled=G waits=N signals=M
 *
 * for every semaphore with a wait past its counter (the GPU waits on it;
 * "signalled" below "waited" means no submission signals the value waited
 * for: the wait can never end), and
 *
 *   VK-QUERY pool=P query=Q last=reset|begin
 *
 * for every query a pending vkGetQueryPoolResults asks for (a query reset
 * and never begun never becomes available: a wait for it never ends), and
 * every submission of the last RING that has not signalled all it
 * signals, in submission order, with its queue and thread:
 *
 *   VK-SUB seq=N tid=T queue=Q wait=SEM:VALUE(ok|by N'|none),... sig=...
 *
 * "ok": the counter is there; "by N'": submission N' signals that value;
 * "none": no submission in the ring does. A queue runs in order, so the
 * first pending submission of each queue with every wait ok yet not done
 * is where the GPU stopped; a wait "by" a later submission is a wait
 * before its signal (a cycle if that one waits back).
 * Diagnostics only: the tables are fixed-size and lossy under races.
 */
#include "vk-sync.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#define SEMS 16384
#define QUERIES 16384

typedef struct
{
  _Atomic uint64_t sem;         /* 0: free */
  _Atomic uintptr_t dev;
  _Atomic uint64_t waited, signalled;
  atomic_uint waits, signals;
} Sem;

typedef struct
{
  _Atomic uint64_t key;         /* pool ^ query * prime; 0: free */
  _Atomic uint64_t pool;
  atomic_uint query, last;      /* 1 reset, 2 begin */
} Query;

#define RING 8192
#define SUB_SEMS 12

typedef struct
{
  atomic_ullong seq;            /* 0: free */
  uintptr_t queue;
  long tid;
  uint32_t nw, ns;
  uint64_t wsem[SUB_SEMS], wval[SUB_SEMS], ssem[SUB_SEMS], sval[SUB_SEMS];
} Sub;

static Sub ring[RING];
static atomic_ullong next_seq;
static Sem sems[SEMS];
static Query queries[QUERIES];
static atomic_int on = -1;

int
vk_sync_enabled (void)
{
  int v = atomic_load (&on);

  if (v < 0) {
    const char *e = getenv ("VK_TIME_SYNC");

    v = e && *e && strcmp (e, "0") != 0;
    atomic_store (&on, v);
  }
  return v;
}

static Sem *
sem_find (uint64_t sem, int add)
{
  unsigned i, h = (unsigned) ((sem * 0x9E3779B97F4A7C15ull) >> 50) % SEMS;

  for (i = 0; i < SEMS; i++, h = (h + 1) % SEMS) {
    uint64_t cur = atomic_load (&sems[h].sem);

    if (cur == sem)
      return &sems[h];
    if (cur == 0) {
      uint64_t none = 0;

      if (!add)
        return NULL;
      if (atomic_compare_exchange_strong (&sems[h].sem, &none, sem)
          || none == sem)
        return &sems[h];
    }
  }
  return NULL;
}

static void
raise_to (_Atomic uint64_t * v, uint64_t to)
{
  uint64_t cur = atomic_load (v);

  while (to > cur && !atomic_compare_exchange_weak (v, &cur, to));
}

static void
sem_wait_on (uint64_t sem, uint64_t value)
{
  Sem *s = sem_find (sem, 0);

  if (s) {
    raise_to (&s->waited, value);
    atomic_fetch_add (&s->waits, 1);
  }
}

static void
sem_signal (uint64_t sem, uint64_t value)
{
  Sem *s = sem_find (sem, 0);

  if (s) {
    raise_to (&s->signalled, value);
    atomic_fetch_add (&s->signals, 1);
  }
}

void
vk_sync_created (uintptr_t dev, const void *create_info, uint64_t sem)
{
  const VkSemaphoreCreateInfo *info = create_info;
  const VkBaseInStructure *p;

  for (p = info->pNext; p; p = p->pNext) {
    if (p->sType == VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO) {
      const VkSemaphoreTypeCreateInfo *t = (const void *) p;
      Sem *s;

      if (t->semaphoreType != VK_SEMAPHORE_TYPE_TIMELINE)
        return;
      s = sem_find (sem, 1);
      if (s) {
        atomic_store (&s->dev, dev);
        atomic_store (&s->waited, 0);
        atomic_store (&s->signalled, t->initialValue);
        atomic_store (&s->waits, 0);
        atomic_store (&s->signals, 0);
      }
      return;
    }
  }
}

void
vk_sync_destroyed (uint64_t sem)
{
  Sem *s = sem_find (sem, 0);

  /* left in the table (open addressing): no device, not dumped */
  if (s)
    atomic_store (&s->dev, 0);
}

static Sub *
sub_new (uintptr_t queue)
{
  unsigned long long seq = atomic_fetch_add (&next_seq, 1) + 1;
  Sub *r = &ring[seq % RING];

  atomic_store (&r->seq, 0);
  r->queue = queue;
  r->tid = (long) syscall (SYS_gettid);
  r->nw = r->ns = 0;
  return r;
}

static void
sub_add (Sub * r, int signal, uint64_t sem, uint64_t value)
{
  if (signal) {
    sem_signal (sem, value);
    if (r->ns < SUB_SEMS) {
      r->ssem[r->ns] = sem;
      r->sval[r->ns++] = value;
    }
  } else {
    sem_wait_on (sem, value);
    if (r->nw < SUB_SEMS) {
      r->wsem[r->nw] = sem;
      r->wval[r->nw++] = value;
    }
  }
}

static void
sub_done (Sub * r)
{
  atomic_store (&r->seq, atomic_load (&next_seq));
}

void
vk_sync_submit2 (uintptr_t queue, uint32_t n, const void *submits)
{
  const VkSubmitInfo2 *si = submits;
  uint32_t i, j;

  for (i = 0; i < n; i++) {
    Sub *r = sub_new (queue);

    for (j = 0; j < si[i].waitSemaphoreInfoCount; j++)
      sub_add (r, 0, (uint64_t) si[i].pWaitSemaphoreInfos[j].semaphore,
          si[i].pWaitSemaphoreInfos[j].value);
    for (j = 0; j < si[i].signalSemaphoreInfoCount; j++)
      sub_add (r, 1, (uint64_t) si[i].pSignalSemaphoreInfos[j].semaphore,
          si[i].pSignalSemaphoreInfos[j].value);
    sub_done (r);
  }
}

void
vk_sync_submit (uintptr_t queue, uint32_t n, const void *submits)
{
  const VkSubmitInfo *si = submits;
  uint32_t i, j;

  for (i = 0; i < n; i++) {
    const VkTimelineSemaphoreSubmitInfo *t = NULL;
    const VkBaseInStructure *p;
    Sub *r = sub_new (queue);

    for (p = si[i].pNext; p; p = p->pNext)
      if (p->sType == VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO)
        t = (const void *) p;
    for (j = 0; t && j < si[i].waitSemaphoreCount
        && j < t->waitSemaphoreValueCount; j++)
      sub_add (r, 0, (uint64_t) si[i].pWaitSemaphores[j],
          t->pWaitSemaphoreValues[j]);
    for (j = 0; t && j < si[i].signalSemaphoreCount
        && j < t->signalSemaphoreValueCount; j++)
      sub_add (r, 1, (uint64_t) si[i].pSignalSemaphores[j],
          t->pSignalSemaphoreValues[j]);
    sub_done (r);
  }
}

void
vk_sync_host_signal (const void *signal_info)
{
  const VkSemaphoreSignalInfo *info = signal_info;

  sem_signal ((uint64_t) info->semaphore, info->value);
}

static Query *
query_find (uint64_t pool, uint32_t q, int add)
{
  uint64_t key = (pool ^ ((uint64_t) q * 0x100000001B3ull)) | 1;
  unsigned i, h = (unsigned) ((key * 0x9E3779B97F4A7C15ull) >> 50) % QUERIES;

  for (i = 0; i < QUERIES; i++, h = (h + 1) % QUERIES) {
    uint64_t cur = atomic_load (&queries[h].key);

    if (cur == key && atomic_load (&queries[h].pool) == pool
        && atomic_load (&queries[h].query) == q)
      return &queries[h];
    if (cur == 0) {
      uint64_t none = 0;

      if (!add)
        return NULL;
      if (atomic_compare_exchange_strong (&queries[h].key, &none, key)) {
        atomic_store (&queries[h].pool, pool);
        atomic_store (&queries[h].query, q);
        return &queries[h];
      }
    }
  }
  return NULL;
}

void
vk_sync_query (uint64_t pool, uint32_t first, uint32_t count, int begin)
{
  uint32_t q;

  for (q = first; q < first + count; q++) {
    Query *e = query_find (pool, q, 1);

    if (e)
      atomic_store (&e->last, begin ? 2 : 1);
  }
}

static void
say (const char *line, int n)
{
  if (n > 0 && write (2, line, (size_t) n) < 0)
    return;
}

void
vk_sync_dump_queries (uint64_t pool, uint32_t first, uint32_t count)
{
  char line[160];
  uint32_t q;

  for (q = first; q < first + count; q++) {
    Query *e = query_find (pool, q, 0);
    unsigned last = e ? atomic_load (&e->last) : 0;

    say (line, snprintf (line, sizeof (line), "VK-QUERY pool=%#llx query=%u "
            "last=%s\n", (unsigned long long) pool, q, last == 1 ? "reset" :
            last == 2 ? "begin" : "unknown"));
  }
}

/* the counter of @sem (0 when unknown, *@known FALSE) */
static uint64_t
counter_of (VkSyncCounterFn counter, uint64_t sem, int *known)
{
  Sem *e = sem_find (sem, 0);
  uintptr_t dev = e ? atomic_load (&e->dev) : 0;
  uint64_t now = 0;

  *known = dev && counter && counter (dev, sem, &now) == 0;
  return now;
}

/* the ring's submission that signals @sem at @value: its seq, or 0 */
static unsigned long long
signaller (uint64_t sem, uint64_t value)
{
  unsigned i, j;

  for (i = 0; i < RING; i++)
    for (j = 0; j < ring[i].ns; j++)
      if (ring[i].ssem[j] == sem && ring[i].sval[j] == value)
        return atomic_load (&ring[i].seq);
  return 0;
}

/* the ring's submissions that have not signalled all they signal */
static void
dump_ring (VkSyncCounterFn counter)
{
  unsigned long long last = atomic_load (&next_seq), seq;
  char line[1024];
  int shown = 0;

  for (seq = last > RING ? last - RING + 1 : 1; seq <= last; seq++) {
    Sub *r = &ring[seq % RING];
    int pending = 0, known, n;
    uint32_t j;

    if (atomic_load (&r->seq) == 0)
      continue;
    for (j = 0; j < r->ns; j++)
      if (counter_of (counter, r->ssem[j], &known) < r->sval[j] && known)
        pending = 1;
    if (!pending)
      continue;
    shown++;
    n = snprintf (line, sizeof (line), "VK-SUB seq=%llu tid=%ld queue=%#lx "
        "wait=", seq, r->tid, (unsigned long) r->queue);
    for (j = 0; j < r->nw && n < (int) sizeof (line) - 80; j++) {
      uint64_t now = counter_of (counter, r->wsem[j], &known);
      unsigned long long by = now >= r->wval[j] ? 0 :
          signaller (r->wsem[j], r->wval[j]);

      n += snprintf (line + n, sizeof (line) - n, "%s%#llx:%llu(", j ? "," :
          "", (unsigned long long) r->wsem[j], (unsigned long long) r->wval[j]);
      n += now >= r->wval[j] ? snprintf (line + n, sizeof (line) - n, "ok)")
          : by ? snprintf (line + n, sizeof (line) - n, "by %llu)", by) :
          snprintf (line + n, sizeof (line) - n, "none)");
    }
    n += snprintf (line + n, sizeof (line) - n, " sig=");
    for (j = 0; j < r->ns && n < (int) sizeof (line) - 60; j++)
      n += snprintf (line + n, sizeof (line) - n, "%s%#llx:%llu", j ? "," :
          "", (unsigned long long) r->ssem[j], (unsigned long long) r->sval[j]);
    n += snprintf (line + n, sizeof (line) - n, "\n");
    say (line, n);
  }
  say (line, snprintf (line, sizeof (line), "VK-SUB end (%d pending)\n",
          shown));
}

void
vk_sync_dump (VkSyncCounterFn counter)
{
  char line[200];
  int i, shown = 0;

  for (i = 0; i < SEMS; i++) {
    uint64_t sem = atomic_load (&sems[i].sem);
    uintptr_t dev = atomic_load (&sems[i].dev);
    uint64_t now = 0, waited, signalled;

    if (!sem || !dev || !counter)
      continue;
    if (counter (dev, sem, &now) != 0)
      continue;
    waited = atomic_load (&sems[i].waited);
    signalled = atomic_load (&sems[i].signalled);
    if (waited <= now && signalled <= now)
      continue;
    shown++;
    say (line, snprintf (line, sizeof (line), "VK-SEM sem=%#llx counter=%llu "
            "waited=%llu signalled=%llu waits=%u signals=%u%s\n",
            (unsigned long long) sem, (unsigned long long) now,
            (unsigned long long) waited, (unsigned long long) signalled,
            atomic_load (&sems[i].waits), atomic_load (&sems[i].signals),
            waited > signalled ? " NEVER-SIGNALLED" : ""));
  }
  say (line, snprintf (line, sizeof (line), "VK-SEM end (%d behind)\n", shown));
  dump_ring (counter);
}
