-- Joining a fact table to a dimstream SCD2 dimension (dim_customer, default column names).
-- fact_orders(order_id, customer_id, ts, amount, customer_sk): one row per order, ts = when it happened.
-- TemporalJoinTest runs these three statements, in this order, and checks their results.

-- 1. By event time: each order meets the customer version valid when the order happened
--    (the same rule as "as of": valid_from <= ts < valid_to, the delete row excluded).
--    LEFT JOIN keeps orders of unknown or deleted customers, with NULL dimension columns.
SELECT f.order_id, f.customer_id, f.ts, f.amount, d.surrogate_key AS customer_sk, d.tier
FROM fact_orders f
LEFT JOIN dim_customer d
  ON d.customer_id = f.customer_id
 AND f.ts >= d.valid_from
 AND (d.valid_to IS NULL OR f.ts < d.valid_to)
 AND NOT d.is_deleted
ORDER BY f.order_id;

-- 2. Stamping the surrogate key on the facts once, at load time, with the same rule.
UPDATE fact_orders f
SET customer_sk = d.surrogate_key
FROM dim_customer d
WHERE d.customer_id = f.customer_id
  AND f.ts >= d.valid_from
  AND (d.valid_to IS NULL OR f.ts < d.valid_to)
  AND NOT d.is_deleted;

-- 3. By surrogate key: an equi-join on the dimension's surrogate_key, no time
--    condition needed; gives the same rows as statement 1.
SELECT f.order_id, f.customer_id, f.ts, f.amount, d.surrogate_key AS customer_sk, d.tier
FROM fact_orders f
LEFT JOIN dim_customer d ON d.surrogate_key = f.customer_sk
ORDER BY f.order_id;
