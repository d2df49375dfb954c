/* Special functions behind the chlo ops (erf_inv, lgamma, digamma,
 * bessel_i0e/i1e, zeta, polygamma), in double precision. f32 kernels call
 * them and round once; edge cases (poles, domains) follow XLA's chlo
 * lowerings. */
#include <math.h>

#include "kernels/ref/elementwise_internal.h"

static const double kPi = 3.14159265358979323846;

/* Inverse error function: Giles' single-precision approximation
 * ("Approximating the erfinv function", GPU Gems 2012) refined by Newton
 * steps on erf (|y| <= 0.5) or erfc (|y| > 0.5, where 1 - |y| is exact). */
double hlx_internal_erf_inv(double y) {
  if (isnan(y) || fabs(y) > 1) return NAN;
  if (fabs(y) == 1) return copysign(INFINITY, y);
  if (y == 0) return y;
  double ay = fabs(y);
  double w = -log((1.0 - ay) * (1.0 + ay)), p;
  if (w < 5) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = sqrt(w) - 3;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  double x = p * ay;
  const double k2_sqrtpi = 1.12837916709551257390; /* 2/sqrt(pi) */
  if (ay <= 0.5) {
    /* Newton on erf(x) = ay. */
    for (int it = 0; it < 3; it++)
      x -= (erf(x) - ay) / (k2_sqrtpi * exp(-x * x));
  } else {
    /* Newton on log(erfc(x)) = log(1 - ay) (1 - ay is exact here), which is
     * close to linear in the tail where erfc falls off like exp(-x^2). */
    const double target = log(1.0 - ay);
    for (int it = 0; it < 8; it++) {
      double c = erfc(x);
      double step = (log(c) - target) * c / (k2_sqrtpi * exp(-x * x));
      x += step;
      if (fabs(step) <= 1e-16 * x) break;
    }
  }
  return copysign(x, y);
}

double hlx_internal_lgamma(double x) {
  int sign;
  return lgamma_r(x, &sign);
}

/* pi / tan(pi x), reducing x by its nearest integer first (exact). */
static double pi_over_tan_pi(double x) {
  double r = x - nearbyint(x);
  return kPi / tan(kPi * r);
}

/* Digamma near its positive root x0: the Taylor series
 * psi(x) = sum_k (-1)^(k+1) zeta(k+1, x0) (x - x0)^k, with x0 split in two
 * doubles so x - x0 keeps full relative precision (the recurrence below
 * cancels badly there). Used for |x - x0| <= 0.5. */
static double digamma_near_root(double x) {
  static const double kC[] = {
      0.9676722454476212, -0.4427631689835921, 0.258499760955651,
      -0.16394270544240652, 0.10782405069126237, -0.07219956125645471,
      0.04880428816414311, -0.03316112647484736, 0.022597648232218104,
      -0.01542476590494896, 0.010538791616612175, -0.007204534386356869,
      0.004926781395729853, -0.003369801655439328, 0.002305126326734928,
      -0.0015769367714301972, 0.0010788252019162967, -0.0007380709389960052,
      0.000504953265834602, -0.0003454680251063077, 0.00023635601564027053,
      -0.00016170622091974803, 0.0001106337276874741, -7.569179582195066e-05,
      5.178575795222081e-05, -3.5430070947659604e-05, 2.424006611860132e-05,
      -1.6584242271854135e-05, 1.134638458466385e-05, -7.762817668462094e-06,
      5.3110609208898636e-06, -3.6336507898010456e-06, 2.486022733129538e-06,
      -1.7008538854332607e-06, 1.1636675363548843e-06, -7.96142543124197e-07,
      5.446941930669446e-07, -3.7266161283438227e-07, 2.549626552021554e-07,
      -1.7443695117727745e-07,
  };
  const double x0_hi = 1.4616321449683622, x0_lo = 9.549995429965697e-17;
  double d = (x - x0_hi) - x0_lo;
  double s = 0;
  for (int k = (int)(sizeof kC / sizeof kC[0]) - 1; k >= 0; k--) s = s * d + kC[k];
  return s * d;
}

/* Digamma: reflection below 1/2, the root series near x0, else recurrence
 * up to 10 and the asymptotic series. Poles (0, -1, -2, ...) give NaN as in
 * XLA. */
double hlx_internal_digamma(double x) {
  if (isnan(x)) return x;
  if (x == INFINITY) return x;
  if (x == -INFINITY) return NAN;
  if (x <= 0 && x == floor(x)) return NAN;
  double result = 0;
  if (x < 0.5) {
    result = -pi_over_tan_pi(x);
    x = 1.0 - x;
  }
  if (x < 0.9616321449683622) {
    result -= 1.0 / x;
    x += 1.0;
  }
  if (x <= 1.9616321449683622) return result + digamma_near_root(x);
  while (x < 10) {
    result -= 1.0 / x;
    x += 1.0;
  }
  double z = 1.0 / (x * x);
  /* sum B_2k / (2k x^2k) for k = 1..7 */
  double s =
      z * (1.0 / 12 -
           z * (1.0 / 120 -
                z * (1.0 / 252 -
                     z * (1.0 / 240 -
                          z * (1.0 / 132 -
                               z * (691.0 / 32760 - z * (1.0 / 12)))))));
  return result + log(x) - 0.5 / x - s;
}

/* exp(-|x|) I_nu(|x|) for nu = 0, 1 (x >= 0): power series below 25 (all
 * terms positive, so no cancellation), the Hankel asymptotic series above. */
static double bessel_ie(int nu, double x) {
  if (x < 25) {
    double q = 0.25 * x * x;
    double term = nu ? 0.5 * x : 1.0, sum = term;
    for (int k = 1; k < 500; k++) {
      term *= q / ((double)k * (double)(k + nu));
      sum += term;
      if (term < sum * 1e-17) break;
    }
    return sum * exp(-x);
  }
  double mu = 4.0 * nu * nu;
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 200; k++) {
    double odd = 2.0 * k - 1.0;
    term *= -(mu - odd * odd) / (8.0 * k * x);
    sum += term;
    if (fabs(term) < fabs(sum) * 1e-17) break;
  }
  return sum / sqrt(2.0 * kPi * x);
}

double hlx_internal_bessel_i0e(double x) {
  if (isnan(x)) return x;
  if (isinf(x)) return 0.0;
  return bessel_ie(0, fabs(x));
}

double hlx_internal_bessel_i1e(double x) {
  if (isnan(x)) return x;
  if (isinf(x)) return copysign(0.0, x);
  if (x == 0) return x;
  return copysign(bessel_ie(1, fabs(x)), x);
}

/* Hurwitz zeta(x, q) = sum_{k>=0} (q + k)^-x, by Euler-Maclaurin summation
 * (the Cephes scheme XLA's chlo.zeta lowering follows). */
double hlx_internal_zeta(double x, double q) {
  /* (2k)! / B_2k, k = 1..12 */
  static const double A[] = {
      12.0,
      -720.0,
      30240.0,
      -1209600.0,
      47900160.0,
      -1.8924375803183791606e9,
      7.47242496e10,
      -2.950130727918164224e12,
      1.1646782814350067249e14,
      -4.5979787224074726105e15,
      1.8152105401943546773e17,
      -7.1661652561756670113e18,
  };
  const double eps = 1.1102230246251565e-16;
  if (isnan(x) || isnan(q)) return NAN;
  if (x == 1) return INFINITY;
  if (x < 1) return NAN;
  if (q <= 0) {
    if (q == floor(q)) return INFINITY;
    if (x != floor(x)) return NAN;
  }
  double s = pow(q, -x), a = q, b = 0;
  int i = 0;
  while (i < 9 || a <= 9.0) {
    i++;
    a += 1.0;
    b = pow(a, -x);
    s += b;
    if (fabs(b / s) < eps) return s;
  }
  double w = a;
  s += b * w / (x - 1.0);
  s -= 0.5 * b;
  double fac = 1.0, k = 0.0;
  for (int j = 0; j < 12; j++) {
    fac *= x + k;
    b /= w;
    double t = fac * b / A[j];
    s += t;
    if (fabs(t / s) < eps) break;
    k += 1.0;
    fac *= x + k;
    b /= w;
    k += 1.0;
  }
  return s;
}

/* polygamma(n, x) = (-1)^(n+1) n! zeta(n+1, x); n = 0 is digamma; n must
 * be a non-negative integer (else NaN). */
double hlx_internal_polygamma(double n, double x) {
  if (isnan(n) || isnan(x)) return NAN;
  if (n < 0 || n != floor(n) || isinf(n)) return NAN;
  if (n == 0) return hlx_internal_digamma(x);
  double sign = fmod(n, 2.0) == 0 ? -1.0 : 1.0;
  return sign * tgamma(n + 1.0) * hlx_internal_zeta(n + 1.0, x);
}
