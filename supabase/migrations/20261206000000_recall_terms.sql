-- BM25 by the question's words, not by their forms.
--
-- A message is indexed with the text search configuration its language calls for
-- (english for English prose, simple for anything else, shared/text/text_search_config.ts),
-- so one word is stored in two forms: "Melanie" is "melani" in an English message and
-- "melanie" in a short one that is not told as English ("Thanks, Melanie!"). The question
-- asks for both forms (chat_query_lexemes), but BM25 counted each form's messages apart:
-- the plain form, held by the few short messages only, looked rare and ranked them first.
-- Now each of the question's words is one term with all its forms (chat_query_terms), and
-- its forms' message counts are added up: each form weighs as the word does. (A message
-- holding two forms of one word, which only one not indexed as English can, counts twice:
-- counting each message once per word made a call 12–27 % slower, for a case that rare.)
-- The large scope leaves out common words by the same count. LoCoMo: R@5 60.4 → 61.2 %,
-- multi-hop 26.2 → 28.1 % (docs/benchmarks.md#retrieval).

-- The question's lexemes (as chat_query_lexemes gives them, in the same order) and, for
-- each, the number of the word it is a form of: a word's plain form and its lexeme under
-- the configuration at the same place in the text are one word (stop words have none and
-- are left out), numbered in the order of those lexemes.
create or replace function public.chat_query_terms(
  p_config text,
  p_text text,
  out lexemes text[],
  out terms integer[]
)
language sql stable parallel safe
set search_path = pg_catalog, pg_temp
as $$
  with plain as (
    -- The text's words as they are, and where (both configurations parse alike).
    select p.lexeme as word, unnest(p.positions) as pos
    from unnest(to_tsvector('simple', coalesce(p_text, ''))) p
  ),
  own as (
    select o.lexeme as stem, unnest(o.positions) as pos
    from unnest(to_tsvector(p_config::regconfig, coalesce(p_text, ''))) o
  ),
  forms as (
    select f.form, min(f.term) as term
    from (
      select pl.word as form, ow.stem as term from plain pl join own ow on ow.pos = pl.pos
      union all
      select ow.stem, ow.stem from own ow
    ) f
    group by f.form
  ),
  numbered as (
    select f.form, dense_rank() over (order by f.term)::integer as term from forms f
  )
  select coalesce(array_agg(n.form order by n.form), '{}'),
         coalesce(array_agg(n.term order by n.form), '{}')
  from numbered n
$$;

create or replace function public.hybrid_match_chat_messages(
  p_owner text,
  p_query_text text,
  p_query_embedding vector(1536),
  p_embedding_model text,
  p_match_count integer default 5,
  p_match_threshold double precision default 0.3,
  p_session_id text default null,
  p_exclude_ids uuid[] default '{}',
  p_full_text_weight double precision default 1,
  p_semantic_weight double precision default 1,
  p_rrf_k integer default 60,
  p_text_config text default 'simple'
)
returns table (
  id uuid,
  session_id text,
  role text,
  content text,
  created_at timestamptz,
  similarity double precision,
  full_text_rank integer,
  vector_rank integer,
  score double precision
)
language plpgsql stable
set search_path = public, extensions, pg_temp
-- Cached generic plans, except for the statements that read all of the owner's messages
-- (or a large scope's) through "(x is null or column = x)": those are planned for this owner
-- and session (custom plans, switched on around them), as a heavy owner needs other plans.
-- A session's own statements keep generic plans: the session's index serves every owner.
set plan_cache_mode = force_generic_plan
as $$
#variable_conflict use_column
declare
  owner_key text := public.chat_owner(p_owner);
  caller_id uuid := auth.uid();
  exact_limit constant integer := 2000;
  bm25_k1 constant double precision := 1.2;
  bm25_b constant double precision := 0.3;
  neighbour_share constant double precision := 0.35;
  second_neighbour_share constant double precision := 0.5;
  pool integer := least(greatest(p_match_count * 4, 20), 200);
  large boolean;
  scope_size integer;
  wanted text[] := '{}';
  wanted_terms integer[] := '{}';
  kept_terms integer[];
  query tsquery;
  ft_ids uuid[] := '{}';
  vec_ids uuid[] := '{}';
  vec_sims double precision[] := '{}';
  sort_setting text;
  recent_window integer;
  jit_setting text;
begin
  if coalesce(p_match_count, 0) <= 0 then
    return;
  end if;
  recent_window := pool * 2 + coalesce(cardinality(p_exclude_ids), 0);
  if p_session_id is not null then
    -- One session: its own index, whatever the owner, so one plan serves every call.
    select count(*) into scope_size from (
      select 1 from public.chat_messages m
      where m.owner = owner_key and m.session_id = p_session_id
        and (caller_id is null or m.user_id = caller_id)
      limit exact_limit + 1
    ) s;
  else
    perform set_config('plan_cache_mode', 'force_custom_plan', true);
    select count(*) into scope_size from (
      select 1 from public.chat_messages m
      where m.owner = owner_key and (caller_id is null or m.user_id = caller_id)
      limit exact_limit + 1
    ) s;
    perform set_config('plan_cache_mode', 'force_generic_plan', true);
  end if;
  large := scope_size > exact_limit;
  if p_full_text_weight > 0 then
    select t.lexemes, t.terms into wanted, wanted_terms
    from public.chat_query_terms(p_text_config, p_query_text) t;
  end if;
  if large and cardinality(wanted) > 0 then
    -- Common words (in 1% of the caller's latest messages or more, their forms' counts
    -- added) would make the GIN index return most of the scope: search for the others, or
    -- the rarest (of equally rare ones, the first of the question's).
    perform set_config('plan_cache_mode', 'force_custom_plan', true);
    select coalesce(
      array_agg(c.term) filter (where c.hits < exact_limit / 100),
      (array_agg(c.term order by c.hits, c.first))[1:1]
    ) into kept_terms
    from (
      select w.term, min(w.i) as first, sum(coalesce(f.hits, 0)) as hits
      from unnest(wanted, wanted_terms) with ordinality w(lexeme, term, i)
      left join (
        select l.lexeme, count(*) as hits
        from (
          select m.fts from public.chat_messages m
          where m.owner = owner_key and (caller_id is null or m.user_id = caller_id)
            and (p_session_id is null or m.session_id = p_session_id) and m.role = 'user'
          order by m.seq desc
          limit exact_limit
        ) r cross join lateral unnest(tsvector_to_array(r.fts)) l(lexeme)
        where l.lexeme = any (wanted)
        group by l.lexeme
      ) f on f.lexeme = w.lexeme
      group by w.term
    ) c;
    select coalesce(array_agg(w.lexeme order by w.i), '{}'),
           coalesce(array_agg(w.term order by w.i), '{}')
      into wanted, wanted_terms
    from unnest(wanted, wanted_terms) with ordinality w(lexeme, term, i)
    where w.term = any (kept_terms);
  end if;
  query := public.chat_any_lexeme(wanted);
  if query is not null and not large and scope_size > pool * 10 then
    -- From 10 x pool up to 2,000 messages: the statistics over the whole scope in one pass
    -- (each wanted lexeme's messages counted from the lexemes alone, no positions), then
    -- BM25 for the messages around the centres only (see 20261203000000_growing_session.sql).
    -- One static statement over chat_recall_scope: planned once per connection, not per call.
    with scope as materialized (
      select s.id, s.seq, s.session_id, length(s.fts) as len,
             case when s.fts @@ query then s.fts end as hit,
             row_number() over (partition by s.session_id order by s.seq desc) as pos,
             row_number() over (order by s.seq desc) as recency
      from public.chat_recall_scope(owner_key, caller_id, p_session_id) s
    ),
    stats as (
      select count(*)::double precision as n, greatest(avg(s.len), 1)::double precision as avg_len
      from scope s
    ),
    frequency as (
      select l.lexeme, count(*)::double precision as df
      from scope s cross join lateral unnest(tsvector_to_array(s.hit)) l(lexeme)
      where l.lexeme = any (wanted)
      group by l.lexeme
    ),
    word_frequency as (
      -- Each wanted lexeme's word: its forms' counts added.
      select w.lexeme, w.i, sum(coalesce(f.df, 0)) over (partition by w.term) as df
      from unnest(wanted, wanted_terms) with ordinality w(lexeme, term, i)
      left join frequency f on f.lexeme = w.lexeme
    ),
    weights as materialized (
      -- Each wanted lexeme's idf, its word's (in the order of wanted), and the query of the
      -- words in at most half of the scope.
      select st.avg_len,
             array_agg(ln(1 + (st.n - f.df + 0.5) / (f.df + 0.5)) order by f.i) as idf,
             public.chat_any_lexeme(array_agg(f.lexeme) filter (where f.df * 2 <= st.n)) as rare
      from stats st cross join word_frequency f
      group by st.n, st.avg_len
    ),
    centre as (
      select s.session_id, s.pos
      from scope s cross join weights w
      where s.hit is not null and (s.recency <= recent_window or s.hit @@ w.rare)
    ),
    near as (
      select c.session_id, c.pos + d.d as pos, bool_or(abs(d.d) <= 2) as ranked
      from centre c cross join generate_series(-4, 4) d(d)
      group by 1, 2
    ),
    placed as materialized (
      select s.id, s.seq, s.session_id, s.pos, n.ranked,
             (select sum(w.idf[array_position(wanted, t.lexeme)] * t.tf * (bm25_k1 + 1)
                         / (t.tf + bm25_k1 * (1 - bm25_b + bm25_b * s.len / w.avg_len)))
              from (
                select u.lexeme, coalesce(array_length(u.positions, 1), 1)::double precision as tf
                from unnest(s.hit) u
                where u.lexeme = any (wanted)
              ) t) as own
      from near n
      join scope s on s.session_id = n.session_id and s.pos = n.pos
      cross join weights w
    ),
    neighboured as (
      select p.id, p.seq, p.ranked, p.own,
             coalesce(p.own, 0) + neighbour_share * (
               coalesce(lag(p.own) over w, 0) + coalesce(lead(p.own) over w, 0)
             ) + second_neighbour_share * (
               coalesce(lag(p.own, 2) over w, 0) + coalesce(lead(p.own, 2) over w, 0)
             ) as rank_score
      from placed p
      window w as (partition by p.session_id order by p.pos)
    ),
    top as (
      select n.id, n.seq, n.rank_score
      from neighboured n
      where n.ranked and n.own > 0 and n.id <> all (p_exclude_ids)
      order by n.rank_score desc, n.seq desc
      limit pool * 2
    ),
    best as (
      select t.id, t.seq, t.rank_score, public.chat_is_question(m.content) as question
      from top t join public.chat_messages m on m.id = t.id
    )
    select coalesce(array_agg(r.id order by r.question, r.rank_score desc, r.seq desc), '{}')
      into ft_ids
    from (select b.* from best b order by b.question, b.rank_score desc, b.seq desc limit pool) r;
  elsif query is not null and not large then
    -- Up to 10 x pool messages: BM25 over every message of the scope. One static statement over
    -- chat_recall_scope (each of its statements on its own index), planned once per connection.
    with scope as materialized (
      -- The scope's user messages (their lengths, for BM25's average), and the vectors of
      -- those that hold a wanted lexeme.
      select s.id, s.seq, s.session_id, length(s.fts) as len,
             case when s.fts @@ query then s.fts end as hit
      from public.chat_recall_scope(owner_key, caller_id, p_session_id) s
    ),
    held as (
      select s.id, s.len, t.lexeme,
             coalesce(array_length(t.positions, 1), 1)::double precision as tf
      from scope s cross join lateral unnest(s.hit) t
      where s.hit is not null and t.lexeme = any (wanted)
    ),
    stats as (
      select count(*)::double precision as n, greatest(avg(len), 1)::double precision as avg_len
      from scope
    ),
    frequency as (
      select h.lexeme, count(*)::double precision as df from held h group by h.lexeme
    ),
    word_frequency as (
      -- Each wanted lexeme's word: its forms' counts added.
      select w.lexeme, sum(coalesce(f.df, 0)) over (partition by w.term) as df
      from unnest(wanted, wanted_terms) w(lexeme, term)
      left join frequency f on f.lexeme = w.lexeme
    ),
    bm25 as (
      select h.id,
             sum(ln(1 + (st.n - f.df + 0.5) / (f.df + 0.5)) * h.tf * (bm25_k1 + 1)
                 / (h.tf + bm25_k1 * (1 - bm25_b + bm25_b * h.len / st.avg_len))) as own
      from held h
      join word_frequency f on f.lexeme = h.lexeme
      cross join stats st
      group by h.id
    ),
    neighboured as (
      select s.id, s.seq, x.own,
             coalesce(x.own, 0) + neighbour_share * (
               coalesce(lag(x.own) over w, 0) + coalesce(lead(x.own) over w, 0)
             ) + second_neighbour_share * (
               coalesce(lag(x.own, 2) over w, 0) + coalesce(lead(x.own, 2) over w, 0)
             ) as rank_score
      from scope s
      left join bm25 x on x.id = s.id
      window w as (partition by s.session_id order by s.seq)
    ),
    best as (
      select n.id, n.seq, n.rank_score, public.chat_is_question(m.content) as question
      from neighboured n
      join public.chat_messages m on m.id = n.id
      where n.own > 0 and n.id <> all (p_exclude_ids)
      order by n.rank_score desc, n.seq desc
      limit pool * 2
    )
    select coalesce(array_agg(r.id order by r.question, r.rank_score desc, r.seq desc), '{}')
      into ft_ids
    from (select b.* from best b order by b.question, b.rank_score desc, b.seq desc limit pool) r;
  elsif query is not null then
    -- A large scope: the latest messages holding a wanted lexeme, planned for this owner.
    perform set_config('plan_cache_mode', 'force_custom_plan', true);
    with scope as materialized (
      -- The scope's user messages (their lengths, for BM25's average), and the vectors of
      -- those that hold a wanted lexeme.
      select m.id, m.seq, m.session_id, length(m.fts) as len,
             case when m.fts @@ query then m.fts end as hit
      from public.chat_messages m
      where m.owner = owner_key and (caller_id is null or m.user_id = caller_id)
        and (p_session_id is null or m.session_id = p_session_id)
        and m.role = 'user' and m.fts @@ query
      order by m.seq desc
      limit exact_limit
    ),
    held as (
      select s.id, s.len, t.lexeme,
             coalesce(array_length(t.positions, 1), 1)::double precision as tf
      from scope s cross join lateral unnest(s.hit) t
      where s.hit is not null and t.lexeme = any (wanted)
    ),
    stats as (
      select count(*)::double precision as n, greatest(avg(len), 1)::double precision as avg_len
      from scope
    ),
    frequency as (
      select h.lexeme, count(*)::double precision as df from held h group by h.lexeme
    ),
    word_frequency as (
      -- Each wanted lexeme's word: its forms' counts added.
      select w.lexeme, sum(coalesce(f.df, 0)) over (partition by w.term) as df
      from unnest(wanted, wanted_terms) w(lexeme, term)
      left join frequency f on f.lexeme = w.lexeme
    ),
    bm25 as (
      select h.id,
             sum(ln(1 + (st.n - f.df + 0.5) / (f.df + 0.5)) * h.tf * (bm25_k1 + 1)
                 / (h.tf + bm25_k1 * (1 - bm25_b + bm25_b * h.len / st.avg_len))) as own
      from held h
      join word_frequency f on f.lexeme = h.lexeme
      cross join stats st
      group by h.id
    ),
    neighboured as (
      -- Only the messages holding a wanted lexeme are read: no neighbours to share with.
      select s.id, s.seq, x.own, coalesce(x.own, 0) as rank_score
      from scope s
      left join bm25 x on x.id = s.id
    ),
    best as (
      select n.id, n.seq, n.rank_score, public.chat_is_question(m.content) as question
      from neighboured n
      join public.chat_messages m on m.id = n.id
      where n.own > 0 and n.id <> all (p_exclude_ids)
      order by n.rank_score desc, n.seq desc
      limit pool * 2
    )
    select coalesce(array_agg(r.id order by r.question, r.rank_score desc, r.seq desc), '{}')
      into ft_ids
    from (select b.* from best b order by b.question, b.rank_score desc, b.seq desc limit pool) r;
  end if;
  if p_semantic_weight > 0 then
    perform set_config('plan_cache_mode', 'force_custom_plan', true);
  end if;
  if p_semantic_weight > 0 and not large then
    -- Exact: every message of the scope, found through the owner's btree.
    select coalesce(array_agg(r.id order by r.question, r.distance), '{}'),
           coalesce(array_agg(1 - r.distance order by r.question, r.distance), '{}')
      into vec_ids, vec_sims
    from (
      select b.id, b.distance, public.chat_is_question(b.content) as question
      from (
        select d.id, d.content, d.distance
        from (
          select m.id, m.content, m.embedding <=> p_query_embedding as distance
          from public.chat_messages m
          where m.owner = owner_key and (caller_id is null or m.user_id = caller_id)
            and (p_session_id is null or m.session_id = p_session_id)
            and m.embedding_model = p_embedding_model and m.id <> all (p_exclude_ids)
        ) d
        where 1 - d.distance >= p_match_threshold
        order by d.distance
        limit pool * 2
      ) b
      order by 3, b.distance
      limit pool
    ) r;
  elsif p_semantic_weight > 0 then
    begin
      perform set_config('hnsw.iterative_scan', 'relaxed_order', true);
    exception when others then
      null; -- pgvector < 0.8: a plain HNSW scan
    end;
    -- The index's order, not a sort (see 20261127100000_hybrid_search.sql).
    sort_setting := current_setting('enable_sort');
    jit_setting := current_setting('jit');
    perform set_config('enable_sort', 'off', true), set_config('jit', 'off', true);
    select coalesce(array_agg(r.id order by r.question, r.distance), '{}'),
           coalesce(array_agg(1 - r.distance order by r.question, r.distance), '{}')
      into vec_ids, vec_sims
    from (
      select b.id, b.distance, public.chat_is_question(b.content) as question
      from (
        select a.id, a.content, a.distance
        from (
          select m.id, m.content, m.embedding <=> p_query_embedding as distance
          from public.chat_messages m
          where m.owner = owner_key and (caller_id is null or m.user_id = caller_id)
            and (p_session_id is null or m.session_id = p_session_id)
            and m.embedding_model = p_embedding_model and m.id <> all (p_exclude_ids)
          order by m.embedding <=> p_query_embedding
          limit pool * 2
        ) a
        where 1 - a.distance >= p_match_threshold
      ) b
      order by 3, b.distance
      limit pool
    ) r;
    perform set_config('enable_sort', sort_setting, true), set_config('jit', jit_setting, true);
  end if;
  perform set_config('plan_cache_mode', 'force_generic_plan', true);
  -- The rows of both rankings, by primary key.
  return query
    with ft as (
      select f.id, f.rank_ix::integer as rank_ix
      from unnest(ft_ids) with ordinality as f(id, rank_ix)
    ),
    vec as (
      select v.id, v.similarity, v.rank_ix::integer as rank_ix
      from unnest(vec_ids, vec_sims) with ordinality as v(id, similarity, rank_ix)
    ),
    found as (
      select m.id, m.session_id, m.role, m.content, m.created_at, m.seq,
             case when m.embedding_model = p_embedding_model
               then 1 - (m.embedding <=> p_query_embedding) end as similarity
      from public.chat_messages m
      where m.id = any (ft_ids || vec_ids) and (caller_id is null or m.user_id = caller_id)
    )
    select x.id, x.session_id, x.role, x.content, x.created_at,
           coalesce(vec.similarity, x.similarity), ft.rank_ix, vec.rank_ix,
           coalesce(p_full_text_weight / (p_rrf_k + ft.rank_ix), 0)
             + coalesce(p_semantic_weight / (p_rrf_k + vec.rank_ix), 0)
    from found x
    left join ft on ft.id = x.id
    left join vec on vec.id = x.id
    order by public.chat_is_question(x.content), 9 desc, x.seq desc
    limit p_match_count;
end
$$;

revoke execute on function public.chat_query_terms(text, text) from public, anon;
grant execute on function public.chat_query_terms(text, text) to authenticated, service_role;
