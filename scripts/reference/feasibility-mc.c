/*
 * Reference for the feasibility model: a seeded Monte Carlo simulation of wealth with monthly contributions, as the
 * service defines it (monthly lognormal steps ln G ~ N(m/12, s²/12) with m = ln(1+μ) − s²/2, s² = ln(1 + (σ/(1+μ))²);
 * each whole month grows wealth by G then adds the contribution; a leftover fraction f of a year grows by
 * ln ~ N(m·f, s²·f)). Prints P(W ≥ K) and its standard error for each case read from stdin, one per line:
 *   capital target years monthly mu sigma paths seed
 * Build and run: cc -O2 -o /tmp/feasibility-mc scripts/reference/feasibility-mc.c -lm && /tmp/feasibility-mc < cases
 * (scripts/reference/feasibility-fixtures.sh makes test/fixtures/feasibility-reference.json with it).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

static uint64_t state;
static uint64_t next(void) { /* splitmix64 */
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static double uniform(void) { return ((next() >> 11) + 0.5) * (1.0 / 9007199254740992.0); }
static double gaussian(void) { /* Box–Muller, one of the pair */
  static int have = 0;
  static double spare;
  if (have) { have = 0; return spare; }
  double u = uniform(), v = uniform(), r = sqrt(-2.0 * log(u));
  spare = r * sin(2 * M_PI * v);
  have = 1;
  return r * cos(2 * M_PI * v);
}

int main(void) {
  double capital, target, years, monthly, mu, sigma;
  long paths;
  unsigned long long seed;
  while (scanf("%lf %lf %lf %lf %lf %lf %ld %llu", &capital, &target, &years, &monthly, &mu, &sigma, &paths, &seed) == 8) {
    state = seed;
    double s2 = log1p(pow(sigma / (1 + mu), 2)), m = log1p(mu) - s2 / 2;
    long months = (long)floor(12 * years + 1e-9);
    double fraction = years - months / 12.0;
    double a = m / 12, b = sqrt(s2 / 12), fm = m * fraction, fs = sqrt(s2 * fraction);
    long hits = 0;
    for (long p = 0; p < paths; p++) {
      double w = capital;
      for (long k = 0; k < months; k++) w = w * exp(a + b * gaussian()) + monthly;
      if (fraction > 0) w *= exp(fm + fs * gaussian());
      if (w >= target) hits++;
    }
    double prob = (double)hits / paths;
    printf("%.10g %.10g %.10g %.10g %.10g %.10g %ld %.8f %.8f\n", capital, target, years, monthly, mu, sigma, paths, prob, sqrt(prob * (1 - prob) / paths));
    fflush(stdout);
  }
  return 0;
}
