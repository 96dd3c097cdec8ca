-- Hybrid retrieval: full-text search beside the vectors, ranked in one function
-- and fused by reciprocal rank (as Supabase's hybrid_search guide does), so an
-- identifier, a name or an error code is found even where the embedder does
-- not place it near the question.
--
-- Each message keeps the text search configuration it was indexed with (text,
-- not regconfig: pg_upgrade refuses tables with reg* columns), 'simple' by
-- default; `fts` is generated from it. Adding the column rewrites the table once.

-- to_tsvector with the configuration named by text. Declared immutable so a
-- generated column can use it; it is as immutable as the configuration it names.
create or replace function public.chat_tsvector(p_config text, p_content text)
returns tsvector
language sql immutable parallel safe
set search_path = pg_catalog, pg_temp
as $$
  select to_tsvector(p_config::regconfig, p_content)
$$;

alter table public.chat_messages
  add column if not exists text_config text not null default 'simple'
    check (text_config ~ '^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$');
alter table public.chat_messages
  add column if not exists fts tsvector
    generated always as (public.chat_tsvector(text_config, content)) stored;

-- Only the user's messages are searched (replies echo the questions they answer).
-- fastupdate off: each insert updates the index itself, instead of an occasional
-- insert paying for merging the whole pending list (a latency spike).
create index if not exists chat_messages_fts_idx
  on public.chat_messages using gin (fts) with (fastupdate = off) where role = 'user';

-- The session and scope queries read (owner, session_id, seq); with user_id in the
-- index, row level security's check needs no visit to the table (an index-only scan
-- once autovacuum has marked the pages all-visible).
drop index if exists public.chat_messages_owner_session_seq_idx;
create index chat_messages_owner_session_seq_idx
  on public.chat_messages (owner, session_id, seq desc) include (user_id);

-- owner and user_id go together (a user's rows are all 'user:<id>'); without this the
-- planner multiplies their selectivities and expects a heavy user to have one row.
create statistics if not exists public.chat_messages_owner_user_stats (dependencies)
  on owner, user_id from public.chat_messages;

-- A question, by its shape: it ends with "?" or opens with a question word. Matches
-- rank a question after every statement, so earlier questions cannot crowd out the
-- statements that answer them.
create or replace function public.chat_is_question(p_content text)
returns boolean
language sql immutable parallel safe
set search_path = pg_catalog, pg_temp
as $$
  select p_content ~ '\?\s*$'
      or p_content ~* '^\s*(what|what''s|whats|who|whom|whose|where|when|which|why|how|do|does|did|is|are|was|were|can|could|remind me|tell me)\M'
$$;

-- The lexemes of a text, as the configuration normalises them.
create or replace function public.chat_lexemes(p_config text, p_text text)
returns text[]
language sql stable parallel safe
set search_path = pg_catalog, pg_temp
as $$
  select tsvector_to_array(to_tsvector(p_config::regconfig, coalesce(p_text, '')))
$$;

-- The OR of some lexemes (a question need not hold every word of its answer, as
-- websearch_to_tsquery would require), or null for none. Lexemes are quoted, not parsed.
create or replace function public.chat_any_lexeme(p_lexemes text[])
returns tsquery
language sql immutable parallel safe
set search_path = pg_catalog, pg_temp
as $$
  select nullif(string_agg(
    '''' || replace(replace(l, '\', '\\'), '''', '''''') || '''', ' | '
  ), '')::tsquery
  from unnest(p_lexemes) l
$$;

-- The lexemes worth searching for in a large scope: those the table's statistics
-- (ANALYZE keeps the most common elements of a tsvector column) do not find in 1%
-- of messages or more; when every one is common, the rarest. Security definer,
-- because pg_stats hides a table with row level security from its users; it tells
-- only how common a word is across all messages.
create or replace function public.chat_uncommon_lexemes(p_lexemes text[])
returns text[]
language sql stable security definer
set search_path = pg_catalog, pg_temp
as $$
  select coalesce(
    array_agg(w.lexeme) filter (where coalesce(c.freq, 0) < 0.01),
    (array_agg(w.lexeme order by c.freq))[1:1]
  )
  from unnest(p_lexemes) as w(lexeme)
  left join (
    select e.lexeme, e.freq
    from pg_stats s,
         unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) as e(lexeme, freq)
    where s.schemaname = 'public' and s.tablename = 'chat_messages' and s.attname = 'fts'
  ) c on c.lexeme = w.lexeme
$$;

-- The top `p_match_count` earlier messages of one owner (one session, or all the
-- owner's sessions when p_session_id is null), from two rankings fused by
-- reciprocal rank: score = full_text_weight / (rrf_k + full-text rank)
--                        + semantic_weight / (rrf_k + vector rank).
-- - Full text: the user's messages holding any of the question's lexemes, ranked by
--   the summed rarity (BM25's idf) among those candidates of the lexemes they hold,
--   so "lin" and "-4417" outweigh "any" and "on".
-- - Vectors: cosine similarity, same embedding model only, at least p_match_threshold
--   (the threshold applies to this side only).
-- Statements rank before questions among each side's best and in the result, so
-- earlier questions do not crowd out the statements that answer them.
-- Scopes of up to 2,000 messages (the usual case) are ranked exactly, found through
-- the owner's btree. In a larger one the vectors come from the HNSW index with an
-- iterative scan, and full text leaves out the lexemes the table's statistics call
-- common (in 1% of messages or more), so candidates come from the GIN index.
-- A signed-in caller's rows are also filtered by user_id, the column row level
-- security filters on: with it the planner estimates the scope's size from the
-- statistics instead of multiplying two independent guesses into one row.
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
-- Plans for this owner and session, not a generic one: a heavy owner needs other plans.
set plan_cache_mode = force_custom_plan
as $$
#variable_conflict use_column
declare
  owner_key text := public.chat_owner(p_owner);
  caller_id uuid := auth.uid();
  exact_limit constant integer := 2000;
  pool integer := least(greatest(p_match_count * 4, 20), 200);
  large boolean;
  wanted text[] := '{}';
  query tsquery;
  ft_ids uuid[] := '{}';
  vec_ids uuid[] := '{}';
  vec_sims double precision[] := '{}';
  sort_setting text;
  jit_setting text;
begin
  if coalesce(p_match_count, 0) <= 0 then
    return;
  end if;
  select count(*) > exact_limit into large from (
    select 1 from public.chat_messages m
    where m.owner = owner_key and (caller_id is null or m.user_id = caller_id)
      and (p_session_id is null or m.session_id = p_session_id)
    limit exact_limit + 1
  ) s;
  if p_full_text_weight > 0 then
    wanted := public.chat_lexemes(p_text_config, p_query_text);
  end if;
  if large and cardinality(wanted) > 0 then
    wanted := public.chat_uncommon_lexemes(wanted);
  end if;
  query := public.chat_any_lexeme(wanted);
  if query is not null then
    with candidates as materialized (
      select m.id, m.seq, m.content, tsvector_to_array(m.fts) as lexemes
      from public.chat_messages m
      where m.owner = owner_key and (caller_id is null or m.user_id = caller_id)
        and (p_session_id is null or m.session_id = p_session_id)
        and m.role = 'user' and m.fts @@ query and m.id <> all (p_exclude_ids)
      order by m.seq desc
      limit exact_limit
    ),
    frequency as (
      select l.lexeme, count(*)::double precision as hits
      from candidates c cross join lateral unnest(c.lexemes) as l(lexeme)
      where l.lexeme = any (wanted)
      group by l.lexeme
    ),
    total as (select count(*)::double precision as n from candidates),
    scored as (
      select c.id, c.seq, c.content,
             sum(ln(1 + (t.n - f.hits + 0.5) / (f.hits + 0.5))) as rarity
      from candidates c cross join lateral unnest(c.lexemes) as l(lexeme)
      join frequency f on f.lexeme = l.lexeme
      cross join total t
      group by c.id, c.seq, c.content
    ),
    best as (
      select s.id, s.seq, s.rarity, public.chat_is_question(s.content) as question
      from scored s
      order by s.rarity desc, s.seq desc
      limit pool * 2
    )
    select coalesce(array_agg(r.id order by r.question, r.rarity desc, r.seq desc), '{}')
      into ft_ids
    from (select b.* from best b order by b.question, b.rarity desc, b.seq desc limit pool) r;
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
    -- The index's order, not a sort: the planner prices detoasting and comparing
    -- thousands of 6 KB vectors far below what it costs (150 ms for 20,000 rows).
    -- Without JIT: the cost of a refused sort would make it compile (160 ms).
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

revoke execute on function public.hybrid_match_chat_messages(
  text, text, vector, text, integer, double precision, text, uuid[],
  double precision, double precision, integer, text
) from public, anon;
grant execute on function public.hybrid_match_chat_messages(
  text, text, vector, text, integer, double precision, text, uuid[],
  double precision, double precision, integer, text
) to authenticated, service_role;

revoke execute on function public.chat_tsvector(text, text) from public, anon;
revoke execute on function public.chat_is_question(text) from public, anon;
revoke execute on function public.chat_lexemes(text, text) from public, anon;
revoke execute on function public.chat_any_lexeme(text[]) from public, anon;
revoke execute on function public.chat_uncommon_lexemes(text[]) from public, anon;
grant execute on function public.chat_tsvector(text, text) to authenticated, service_role;
grant execute on function public.chat_is_question(text) to authenticated, service_role;
grant execute on function public.chat_lexemes(text, text) to authenticated, service_role;
grant execute on function public.chat_any_lexeme(text[]) to authenticated, service_role;
grant execute on function public.chat_uncommon_lexemes(text[]) to authenticated, service_role;
