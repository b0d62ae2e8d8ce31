/* cost — prices normalized usage (see cost.h). Arithmetic only. */
#include "api/cost.h"

double api_cost_usd(const api_model *m, const api_usage *u)
{
    if (!u)
        return -1;
    if (u->cost_usd >= 0)
        return u->cost_usd;
    if (!api_usage_known(u) || !m)
        return -1;
    api_prices p = m->price;
    if (m->tier_above > 0 && u->input_total > m->tier_above)
        p = m->tier;
    if (p.input <= 0 && p.output <= 0)
        return -1;
    double cr = u->cache_read > 0 ? (double)u->cache_read : 0;
    double cw = u->cache_write > 0 ? (double)u->cache_write : 0;
    double uncached;
    if (u->input_uncached >= 0)
        uncached = (double)u->input_uncached;
    else if (u->input_total >= 0)
        uncached = (double)u->input_total - cr - cw;
    else
        uncached = 0;
    if (uncached < 0)
        uncached = 0;
    double out = u->output > 0 ? (double)u->output : 0;
    double pcr = p.cache_read > 0 ? p.cache_read : p.input;
    double pcw = p.cache_write > 0 ? p.cache_write : p.input;
    return (uncached * p.input + cr * pcr + cw * pcw + out * p.output) / 1e6;
}
