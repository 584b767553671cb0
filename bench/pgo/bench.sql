-- Benchmark workload, different from train.sql: other tables, sizes, and
-- query shapes (sorts, subqueries, string work, an index rebuild).
CREATE TABLE item(id INTEGER PRIMARY KEY, k INTEGER, label TEXT, price REAL);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 300000)
INSERT INTO item SELECT x, (x * 2654435761) % 100003, printf('item-%08d', x), (x % 5000) / 100.0 FROM c;
CREATE INDEX item_k ON item(k);
SELECT k % 100, count(*), avg(price) FROM item GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 3;
SELECT count(*) FROM item a WHERE price > (SELECT avg(price) FROM item b WHERE b.k = a.k);
SELECT label FROM item ORDER BY price DESC, k LIMIT 3;
SELECT count(DISTINCT substr(label, 6, 3)) FROM item;
UPDATE item SET price = price + 1 WHERE k < 30000;
SELECT sum(price) FROM item WHERE label GLOB 'item-0001*';
REINDEX item_k;
