/* A small, deterministic compute workload for the phybin demo: a softened
 * gravitational N-body simulation with a leapfrog integrator.
 *
 * Every number comes from a fixed pseudo-random seed and plain IEEE double
 * arithmetic (+ - * / and sqrt, all exactly rounded), so the x86-64 build run
 * natively and the same binary run through phybin must print identical
 * lines, down to the checksum over the bits of the final state.
 *
 * Usage: nbody [STEPS]   (default 1000)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BODIES = 64 };
static const double kTimeStep = 0.001;
static const double kSoftening2 = 0.01; /* keeps close encounters finite */

struct system {
  double x[BODIES], y[BODIES], z[BODIES];
  double vx[BODIES], vy[BODIES], vz[BODIES];
  double mass[BODIES];
};

/* xorshift64: the same sequence on every machine, unlike rand(). */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double next_unit(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) / 9007199254740992.0; /* [0, 1) */
}

static void init_system(struct system *s) {
  for (int i = 0; i < BODIES; i++) {
    s->x[i] = next_unit() * 2.0 - 1.0;
    s->y[i] = next_unit() * 2.0 - 1.0;
    s->z[i] = next_unit() * 2.0 - 1.0;
    s->vx[i] = (next_unit() - 0.5) * 0.1;
    s->vy[i] = (next_unit() - 0.5) * 0.1;
    s->vz[i] = (next_unit() - 0.5) * 0.1;
    s->mass[i] = 0.5 + next_unit();
  }
}

/* Changes the velocities by the gravitational pull over time dt. */
static void kick(struct system *s, double dt) {
  for (int i = 0; i < BODIES; i++) {
    double ax = 0.0, ay = 0.0, az = 0.0;
    for (int j = 0; j < BODIES; j++) {
      if (j == i) continue;
      double dx = s->x[j] - s->x[i], dy = s->y[j] - s->y[i], dz = s->z[j] - s->z[i];
      double r2 = dx * dx + dy * dy + dz * dz + kSoftening2;
      double inv_r = 1.0 / sqrt(r2);
      double f = s->mass[j] * inv_r * inv_r * inv_r;
      ax += f * dx;
      ay += f * dy;
      az += f * dz;
    }
    s->vx[i] += ax * dt;
    s->vy[i] += ay * dt;
    s->vz[i] += az * dt;
  }
}

static void drift(struct system *s, double dt) {
  for (int i = 0; i < BODIES; i++) {
    s->x[i] += s->vx[i] * dt;
    s->y[i] += s->vy[i] * dt;
    s->z[i] += s->vz[i] * dt;
  }
}

static double total_energy(const struct system *s) {
  double e = 0.0;
  for (int i = 0; i < BODIES; i++) {
    double v2 = s->vx[i] * s->vx[i] + s->vy[i] * s->vy[i] + s->vz[i] * s->vz[i];
    e += 0.5 * s->mass[i] * v2;
    for (int j = i + 1; j < BODIES; j++) {
      double dx = s->x[j] - s->x[i], dy = s->y[j] - s->y[i], dz = s->z[j] - s->z[i];
      e -= s->mass[i] * s->mass[j] / sqrt(dx * dx + dy * dy + dz * dz + kSoftening2);
    }
  }
  return e;
}

/* FNV-1a over the bytes of the whole state: any bit that differs shows. */
static uint64_t checksum(const struct system *s) {
  unsigned char bytes[sizeof *s];
  memcpy(bytes, s, sizeof bytes);
  uint64_t h = 0xCBF29CE484222325ull;
  for (size_t i = 0; i < sizeof bytes; i++) {
    h ^= bytes[i];
    h *= 0x100000001B3ull;
  }
  return h;
}

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 1000;
  if (steps < 0) {
    fprintf(stderr, "usage: nbody [STEPS]\n");
    return 2;
  }
  static struct system s;
  init_system(&s);
  double e0 = total_energy(&s);
  for (int step = 0; step < steps; step++) {
    kick(&s, kTimeStep / 2);
    drift(&s, kTimeStep);
    kick(&s, kTimeStep / 2);
  }
  double e1 = total_energy(&s);
  printf("nbody: %d bodies, %d steps, energy %.12f -> %.12f (relative drift %.3e)\n", BODIES, steps,
         e0, e1, (e1 - e0) / fabs(e0));
  printf("checksum: %016llx\n", (unsigned long long)checksum(&s));
  return 0;
}
