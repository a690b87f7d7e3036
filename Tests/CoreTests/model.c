/*
 * model.c — the "cell" value model from harness.h: how a binding owns values
 * and tells the core about them.
 */
#include "harness.h"

#include <errno.h>
#include <time.h>

static void cell_on_destroy(void *context) {
  cell *c = context;
  c->destroyed++;
}

static void cell_clear(cell *c) {
  memset(c, 0, sizeof *c);
}

/* Compute callback: recompute, store, and answer with the cutoff. A failed
 * read makes the run fail with the code it got, as a binding would. */
int cell_compute(sg_node *node, void *context) {
  cell *c = context;
  (void)node;
  c->runs++;
  c->error = 0;
  int value = c->formula(c);
  if (c->error) return c->error;
  if (value == c->value) return SG_UNCHANGED;
  c->value = value;
  return SG_CHANGED;
}

int cell_effect(sg_node *node, void *context) {
  cell *c = context;
  (void)node;
  c->runs++;
  c->error = 0;
  c->value = c->formula(c);
  return c->error ? c->error : SG_OK;
}

void cell_stored_at(cell *c, sg_graph *g, const char *name, int value, const char *file,
                    int line) {
  cell_clear(c);
  c->value = value;
  sg_node_info info = {name, file, line};
  int rc = sg_stored_new(g, &info, &c->node);
  if (rc != SG_OK) harness_fail(file, line, "sg_stored_new: %s", sg_strerror(rc));
}

/* Clears the cell and takes its inputs; the node comes after. */
static void cell_prepare(cell *c, cell_formula f, cell **in) {
  cell_clear(c);
  c->formula = f;
  for (int i = 0; i < 4 && in[i]; i++) c->in[i] = in[i];
}

void cell_computed_at(cell *c, sg_graph *g, const char *name, cell_formula f, cell **in,
                      const char *file, int line) {
  cell_prepare(c, f, in);
  sg_node_info info = {name, file, line};
  int rc = sg_computed_new(g, &info, cell_compute, c, cell_on_destroy, &c->node);
  if (rc != SG_OK) harness_fail(file, line, "sg_computed_new: %s", sg_strerror(rc));
}

/* The effect runs right here, once, before this returns. */
void cell_effect_at(cell *c, sg_graph *g, const char *name, cell_formula f, cell **in,
                    const char *file, int line) {
  cell_prepare(c, f, in);
  sg_node_info info = {name, file, line};
  int rc = sg_effect_new(g, &info, cell_effect, c, cell_on_destroy, &c->node);
  if (rc != SG_OK) harness_fail(file, line, "sg_effect_new: %s", sg_strerror(rc));
}

int cell_in(cell *self, cell *input) {
  int rc = sg_read(input->node);
  if (rc < 0 && !self->error) self->error = rc;
  return input->value;
}

int cell_read_at(cell *c, const char *file, int line) {
  int rc = sg_read(c->node);
  if (rc != SG_OK) harness_fail(file, line, "sg_read: %s", sg_strerror(rc));
  return c->value;
}

/* A binding calls sg_changed only when the value really differs. */
void cell_set_at(cell *c, int value, const char *file, int line) {
  if (c->value == value) return;
  c->value = value;
  int rc = sg_changed(c->node);
  if (rc != SG_OK) harness_fail(file, line, "sg_changed: %s", sg_strerror(rc));
}

void cell_destroy_at(cell *c, const char *file, int line) {
  int rc = sg_node_destroy(c->node);
  if (rc != SG_OK) harness_fail(file, line, "sg_node_destroy: %s", sg_strerror(rc));
}

void graph_free_at(sg_graph *g, const char *file, int line) {
  int rc = sg_graph_free(g);
  if (rc != SG_OK) harness_fail(file, line, "sg_graph_free: %s", sg_strerror(rc));
}

/* ------------------------------------------------------------ introspection */

sg_node_description describe_at(sg_node *n, const char *file, int line) {
  sg_node_description d;
  int rc = sg_node_describe(n, &d);
  if (rc != SG_OK) {
    harness_fail(file, line, "sg_node_describe: %s", sg_strerror(rc));
    memset(&d, 0xff, sizeof d);
  }
  return d;
}

size_t node_count_at(sg_graph *g, const char *file, int line) {
  size_t count;
  int rc = sg_graph_node_count(g, &count);
  if (rc == SG_OK) return count;
  harness_fail(file, line, "sg_graph_node_count: %s", sg_strerror(rc));
  return (size_t)-1;
}

size_t edges_at(sg_node *n, int dependents, sg_node **out, size_t max, const char *file,
                int line) {
  size_t count;
  int rc = dependents ? sg_node_dependents(n, out, max, &count)
                      : sg_node_sources(n, out, max, &count);
  if (rc == SG_OK) return count;
  harness_fail(file, line, "sg_node_%s: %s", dependents ? "dependents" : "sources",
               sg_strerror(rc));
  return (size_t)-1;
}

/* ----------------------------------------------------------------- formulas */

int formula_copy(cell *self) { return IN(self, 0); }
int formula_plus1(cell *self) { return IN(self, 0) + 1; }
int formula_double(cell *self) { return IN(self, 0) * 2; }

int formula_sum(cell *self) {
  int sum = 0;
  for (int i = 0; i < 4 && self->in[i]; i++) sum += IN(self, i);
  return sum;
}

int formula_sign(cell *self) {
  int v = IN(self, 0);
  return v > 0 ? 1 : v < 0 ? -1 : 0;
}

int formula_flaky(cell *self) {
  int v = IN(self, 0);
  if (((flaky *)self)->fail && !self->error) self->error = SG_EINVAL;
  return v;
}

bool wait_10s(sem_t *sem) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 10;
  while (sem_timedwait(sem, &until) != 0)
    if (errno != EINTR) return false;
  return true;
}

pthread_t spawn_thread(void *(*fn)(void *), void *arg, size_t stack) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  if (stack) pthread_attr_setstacksize(&attr, stack);
  pthread_t t;
  REQUIRE(pthread_create(&t, &attr, fn, arg) == 0);
  pthread_attr_destroy(&attr);
  return t;
}
