/* cost — what a request cost in USD, from normalized usage (chunk.h) and the model's
 * prices (model.h). A cost the provider reported (OpenRouter usage.cost) wins. Otherwise
 * every prompt token is priced once: uncached input at the input price, cache reads at the
 * cache-read price, cache writes at the cache-write price (a price the table lacks falls
 * back to the input price), output (reasoning included) at the output price; the long
 * context tier applies when the whole prompt is above it. Pure arithmetic: no I/O, and it
 * never counts cached tokens twice (Cline does for OpenAI-style usage; hew's usage is
 * normalized, so it cannot). */
#ifndef HEW_API_COST_H
#define HEW_API_COST_H

#include "api/chunk.h"
#include "api/model.h"

/* USD, or -1 when the usage is unknown or the model has no prices (and the provider
 * reported none). */
double api_cost_usd(const api_model *m, const api_usage *u);

#endif
