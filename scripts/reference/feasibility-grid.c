/*
 * Seeded Monte Carlo reference for goal feasibility (test/fixtures/feasibility-grid-reference.json).
 * Model (the service's convention): annual arithmetic mean mu and SD sigma give an annual log-return N(m, s2) with
 * s2 = ln(1 + (sigma/(1+mu))^2), m = ln(1+mu) - s2/2. Wealth evolves monthly, W <- W*exp(N(m/12, s2/12)) + c, for
 * floor(12T) months, then grows without contribution for the leftover fraction f of a year (log-return N(m f, s2 f)).
 * Each case is simulated with PATHS paths and the probability of W >= K reported for three targets around the
 * median-growth wealth (0.7, 1, 1.3 times it; plus the issue's own target for the first two cases). Build and run: scripts/reference/feasibility-grid.sh
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t s[4];
static inline uint64_t rotl(const uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
static uint64_t next(void) { /* xoshiro256** */
  const uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t; s[3] = rotl(s[3], 45);
  return result;
}
static void seed(uint64_t x) { /* splitmix64 */
  for (int i = 0; i < 4; i++) {
    uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL; z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    s[i] = z ^ (z >> 31);
  }
}
static double uniform(void) { return ((next() >> 11) + 0.5) * 0x1.0p-53; }
static int have_spare = 0; static double spare;
static double gauss(void) { /* Marsaglia polar */
  if (have_spare) { have_spare = 0; return spare; }
  double u, v, q;
  do { u = 2 * uniform() - 1; v = 2 * uniform() - 1; q = u * u + v * v; } while (q >= 1 || q == 0);
  double f = sqrt(-2 * log(q) / q);
  spare = v * f; have_spare = 1; return u * f;
}

typedef struct { double capital, monthly, years, mu, sigma, extra; } Case; /* extra: a further target, 0 = none */
static const Case CASES[] = {
  {0, 1000, 30, 0.118, 0.196, 1000000}, {10000, 500, 20, 0.118, 0.196, 300000},
  {0, 500, 1, 0.08, 0.15}, {20000, 200, 1, 0.15, 0.35}, {0, 300, 2, -0.05, 0.25},
  {0, 1000, 5, 0.03, 0.05}, {50000, 1000, 5, 0.15, 0.35}, {100000, 100, 5, 0.08, 0.15},
  {0, 200, 10, 0.15, 0.35}, {5000, 500, 10, -0.05, 0.15}, {0, 1000, 10, 0.08, 0.25},
  {200000, 2000, 15, 0.03, 0.35}, {0, 400, 15, 0.12, 0.05}, {0, 800, 20, -0.05, 0.35},
  {100000, 500, 20, 0.08, 0.25}, {0, 1500, 25, 0.15, 0.15}, {30000, 300, 25, 0.03, 0.25},
  {0, 1000, 30, 0.08, 0.35}, {1000000, 1000, 30, -0.05, 0.05}, {0, 250, 35, 0.03, 0.15},
  {0, 2000, 40, 0.15, 0.25}, {50000, 100, 40, 0.08, 0.35}, {0, 100, 45, -0.05, 0.25},
  {0, 500, 50, 0.08, 0.15}, {10000, 1000, 50, 0.15, 0.35}, {0, 1000, 50, 0.03, 0.35},
  {0, 700, 12.5, 0.10, 0.20}, {25000, 600, 7.25, 0.06, 0.12}, {0, 100, 3.5, 0.15, 0.05},
  {1000, 10000, 50, -0.05, 0.05},
  /* High log variance s²T (3.3–6.4) without capital, where the method's error grows. */
  {0, 1000, 50, -0.05, 0.35}, {0, 1000, 50, 0.15, 0.35}, {0, 100, 40, 0.0, 0.35}, {0, 500, 35, -0.05, 0.3},
};
static const double FACTORS[] = {0.7, 1.0, 1.3};

int main(int argc, char **argv) {
  long paths = argc > 1 ? atol(argv[1]) : 1000000;
  int first = argc > 2 ? atoi(argv[2]) : 0; /* simulate cases from this index on (each keeps its own seed) */
  int ncases = sizeof CASES / sizeof CASES[0];
  printf("{\n  \"paths\": %ld,\n  \"seed\": \"case index + 1 (splitmix64 -> xoshiro256**)\",\n  \"cases\": [\n", paths);
  for (int ci = first; ci < ncases; ci++) {
    const Case *k = &CASES[ci];
    double s2 = log1p(pow(k->sigma / (1 + k->mu), 2)), m = log1p(k->mu) - s2 / 2;
    int n = (int)floor(12 * k->years + 1e-9);
    double f = k->years - n / 12.0;
    /* Median-growth wealth: every log-return at its mean. */
    double med = k->capital * exp(m * k->years);
    for (int u = 0; u < n; u++) med += k->monthly * exp(m * u / 12.0 + m * f);
    double targets[4]; long hits[4] = {0, 0, 0, 0};
    int nt = k->extra > 0 ? 4 : 3;
    for (int t = 0; t < 3; t++) targets[t] = round(med * FACTORS[t]);
    targets[3] = k->extra;
    seed(ci + 1); have_spare = 0;
    double am = m / 12, as = sqrt(s2 / 12), fm = m * f, fs = sqrt(s2 * f);
    for (long p = 0; p < paths; p++) {
      double w = k->capital;
      for (int i = 0; i < n; i++) w = w * exp(am + as * gauss()) + k->monthly;
      if (f > 1e-12) w *= exp(fm + fs * gauss());
      for (int t = 0; t < nt; t++) hits[t] += w >= targets[t];
    }
    for (int t = 0; t < nt; t++) {
      double pr = (double)hits[t] / paths;
      printf("    {\"capital\": %.0f, \"monthly_contribution\": %.0f, \"horizon_years\": %g, \"expected_return\": %g, "
             "\"volatility\": %g, \"target\": %.0f, \"probability\": %.6f, \"standard_error\": %.6f}%s\n",
             k->capital, k->monthly, k->years, k->mu, k->sigma, targets[t], pr, sqrt(pr * (1 - pr) / paths),
             ci == ncases - 1 && t == nt - 1 ? "" : ",");
    }
    fflush(stdout);
  }
  printf("  ]\n}\n");
  return 0;
}
