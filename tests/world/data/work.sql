CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL, qty INTEGER);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
INSERT INTO item(name, price, qty) SELECT 'item' || i, (i * 37 % 101) / 4.0, i % 13 FROM n;
CREATE INDEX item_price ON item(price);
SELECT count(*), round(sum(price * qty), 2), max(price), min(name) FROM item;
SELECT qty, count(*), round(avg(price), 4) FROM item GROUP BY qty ORDER BY qty LIMIT 5;
SELECT name FROM item WHERE price BETWEEN 10 AND 10.5 ORDER BY id;
SELECT group_concat(id, '-') FROM (SELECT id FROM item ORDER BY price DESC, id LIMIT 7);
