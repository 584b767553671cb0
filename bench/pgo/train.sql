-- Training workload: a mixed OLTP-style load on an in-memory database.
CREATE TABLE customer(id INTEGER PRIMARY KEY, name TEXT, city TEXT, balance REAL);
CREATE TABLE orders(id INTEGER PRIMARY KEY, customer INTEGER, amount REAL, note TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 20000)
INSERT INTO customer SELECT x, 'name' || x, 'city' || (x % 97), (x * 7919) % 10007 FROM c;
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 120000)
INSERT INTO orders SELECT x, (x * 31) % 20000 + 1, (x % 1000) / 10.0, hex((x * 2654435761) % 4294967291) FROM c;
CREATE INDEX orders_customer ON orders(customer);
CREATE INDEX customer_city ON customer(city);
SELECT city, count(*), sum(balance) FROM customer GROUP BY city ORDER BY 3 DESC LIMIT 5;
SELECT c.name, sum(o.amount) FROM customer c JOIN orders o ON o.customer = c.id
 WHERE c.city = 'city7' GROUP BY c.id ORDER BY 2 DESC LIMIT 5;
UPDATE orders SET amount = amount * 1.1 WHERE id % 7 = 0;
DELETE FROM orders WHERE id % 13 = 0;
SELECT count(*), avg(amount), max(length(note)) FROM orders;
SELECT upper(substr(name, 1, 6)), count(*) FROM customer GROUP BY 1 ORDER BY 2 DESC LIMIT 3;
SELECT customer, amount FROM orders WHERE note LIKE '%AB%' ORDER BY amount DESC LIMIT 5;
