/*
 * minimal.c — a complete StateGraph program: two stored nodes, a computed
 * total, an effect that prints it; a batch, the equality cutoff, and misuse
 * answered with error codes. `make test-install` builds it against the
 * installed library through pkg-config, shared and static, and checks its
 * output. The README's "Using StateGraph from C" shows this program.
 */
#include <stategraph.h>

#include <stdio.h>
#include <string.h>

/* The program owns the values; the graph only hears about them. */
typedef struct cart {
  int price, quantity, total;
  sg_node *price_node, *quantity_node, *total_node;
} cart;

static int compute_total(sg_node *self, void *context) {
  cart *c = context;
  (void)self;
  int rc;
  if ((rc = sg_read(c->price_node)) < 0 || (rc = sg_read(c->quantity_node)) < 0)
    return rc; /* e.g. SG_ECYCLE: the read fails, and so does this run */
  int total = c->price * c->quantity;
  if (total == c->total) return SG_UNCHANGED; /* cutoff: nothing below reruns */
  c->total = total;
  return SG_CHANGED;
}

static int print_total(sg_node *self, void *context) {
  cart *c = context;
  (void)self;
  int rc = sg_read(c->total_node); /* brings total up to date, and subscribes */
  if (rc < 0) return rc;
  printf("total = %d\n", c->total);
  return SG_OK;
}

int main(void) {
  if (strcmp(sg_version(), SG_VERSION_STRING) != 0) {
    fprintf(stderr, "built with stategraph.h %s, running %s\n", SG_VERSION_STRING, sg_version());
    return 1;
  }
  printf("StateGraph %s\n", sg_version());

  cart c = {.price = 3, .quantity = 2};
  sg_graph *g = sg_graph_new();
  sg_node *printer = NULL;
  int rc;
  if (!g ||
      (rc = sg_stored_new(g, &(sg_node_info){.name = "price"}, &c.price_node)) < 0 ||
      (rc = sg_stored_new(g, &(sg_node_info){.name = "quantity"}, &c.quantity_node)) < 0 ||
      (rc = sg_computed_new(g, &(sg_node_info){.name = "total"}, compute_total, &c, NULL,
                            &c.total_node)) < 0 ||
      (rc = sg_effect_new(g, &(sg_node_info){.name = "printer"}, print_total, &c, NULL,
                          &printer)) < 0) { /* runs once: "total = 6" */
    fprintf(stderr, "stategraph: %s\n", g ? sg_strerror(rc) : "out of memory");
    return 1;
  }

  c.quantity = 5;
  sg_changed(c.quantity_node); /* "total = 15" */

  sg_batch_begin(); /* two writes, one run of the effect */
  c.price = 4;
  sg_changed(c.price_node);
  c.quantity = 4;
  sg_changed(c.quantity_node);
  sg_batch_end(); /* "total = 16" */

  sg_batch_begin(); /* 8 * 2 is 16 again: total recomputes, printer does not run */
  c.price = 8;
  sg_changed(c.price_node);
  c.quantity = 2;
  sg_changed(c.quantity_node);
  sg_batch_end();

  /* Misuse is an error code, never a crash. */
  printf("sg_changed(total): %s\n", sg_strerror(sg_changed(c.total_node)));
  printf("sg_batch_end(): %s\n", sg_strerror(sg_batch_end()));

  sg_node_destroy(printer);
  sg_node_destroy(c.total_node);
  sg_node_destroy(c.quantity_node);
  sg_node_destroy(c.price_node);
  printf("sg_read(destroyed node): %s\n", sg_strerror(sg_read(c.total_node)));
  return sg_graph_free(g) == SG_OK ? 0 : 1;
}
