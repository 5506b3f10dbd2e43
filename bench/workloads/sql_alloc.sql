-- SPDX-License-Identifier: MIT
-- An allocation-heavy SQL workload for the sqlite3 CLI: inserts, an index, joins, sorting.
create table t(id integer primary key, k text, v text);
with recursive n(i) as (select 1 union all select i + 1 from n where i < 30000)
insert into t(k, v) select printf('key-%06d', (i * 7919) % 30000), hex(randomblob(24)) from n;
create index t_k on t(k);
create table u as select k, count(*) c, max(length(v)) m from t group by substr(k, 1, 7);
select count(*), sum(c), max(m) from u;
select k, v from t where k like 'key-00%' order by v desc limit 3;
delete from t where id % 3 = 0;
select count(*) from t;
