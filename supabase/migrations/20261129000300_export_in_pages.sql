-- An export in pages. export_chat_caller built a caller's whole history as one jsonb
-- value in one statement, sent as one body: memory grew with the history, and past
-- jsonb's size limit (255 MB) the export failed outright. export_chat_page returns one
-- page of one part of it — rows in a stable order after a cursor, at most p_limit of
-- them and about p_max_bytes of JSON (always at least one row) — each found through
-- an index on the owner, so every page costs about the same however long the history.
-- The server writes the pages one after another into the response
-- (shared/http/export_body.ts), and the document keeps its shape.
--
-- Sections, their order and their cursors:
--   head              one row: {owner, exportedAt, workingMemory}
--   messages          by session id, then oldest first   cursor: seq, then session id
--   sessionSummaries  by session id                       cursor: session id
--   loops, runs       oldest first                        cursor: seq
--   toolCalls         oldest first                        cursor: created_at|id
-- Like every function here it runs as its caller, within a signed-in user's own rows
-- whatever owner it is passed.

create or replace function public.export_chat_page(
  p_owner text,
  p_section text,
  p_after text default null,
  p_limit integer default 200,
  p_max_bytes integer default 1048576
)
returns table (cursor text, item jsonb)
language plpgsql stable
set search_path = public, pg_temp
as $$
#variable_conflict use_column
declare
  owner_key text := public.chat_owner(p_owner);
  wanted integer := greatest(1, least(coalesce(p_limit, 200), 1000));
  budget bigint := greatest(coalesce(p_max_bytes, 1048576), 1);
  bytes bigint := 0;
  rows_out integer := 0;
  session text;
  after_seq bigint;
  after_time timestamptz;
  after_id bigint;
  r record;
begin
  if p_section = 'head' then
    return query
      select null::text, jsonb_build_object(
        'owner', owner_key,
        'exportedAt', clock_timestamp(),
        'workingMemory', (select w.document from public.working_memory w where w.owner = owner_key)
      );
  elsif p_section = 'messages' then
    -- One session at a time through (owner, session_id, seq): the cursor is "seq session".
    after_seq := coalesce(split_part(p_after, ' ', 1)::bigint, -1);
    session := case when p_after is null then null else substr(p_after, strpos(p_after, ' ') + 1) end;
    if session is null then
      select min(m.session_id) into session from public.chat_messages m where m.owner = owner_key;
    end if;
    while session is not null loop
      for r in
        select m.seq::text || ' ' || m.session_id as cursor, jsonb_build_object(
          'id', m.id, 'sessionId', m.session_id, 'role', m.role, 'content', m.content,
          'createdAt', m.created_at, 'embeddingModel', m.embedding_model, 'runId', m.run_id
        ) as item
        from public.chat_messages m
        where m.owner = owner_key and m.session_id = session and m.seq > after_seq
        order by m.seq
        limit wanted - rows_out
      loop
        cursor := r.cursor;
        item := r.item;
        return next;
        rows_out := rows_out + 1;
        bytes := bytes + octet_length(r.item::text);
        if rows_out >= wanted or bytes >= budget then
          return;
        end if;
      end loop;
      select min(m.session_id) into session
      from public.chat_messages m where m.owner = owner_key and m.session_id > session;
      after_seq := -1;
    end loop;
  elsif p_section = 'sessionSummaries' then
    for r in
      select s.session_id as cursor, jsonb_build_object(
        'sessionId', s.session_id, 'summary', s.summary,
        'coveredMessages', s.covered_messages, 'updatedAt', s.updated_at
      ) as item
      from public.session_summaries s
      where s.owner = owner_key and (p_after is null or s.session_id > p_after)
      order by s.session_id
      limit wanted
    loop
      cursor := r.cursor;
      item := r.item;
      return next;
      bytes := bytes + octet_length(r.item::text);
      exit when bytes >= budget;
    end loop;
  elsif p_section = 'loops' then
    for r in
      select l.seq::text as cursor, jsonb_build_object(
        'id', l.id, 'loopType', l.loop_type, 'status', l.status,
        'currentScore', l.current_score, 'scoreHistory', l.score_history,
        'iteration', l.iteration, 'threshold', l.threshold,
        'maxIterations', l.max_iterations, 'createdAt', l.created_at, 'updatedAt', l.updated_at
      ) as item
      from public.refinement_loops l
      where l.owner = owner_key and l.seq > coalesce(p_after::bigint, -1)
      order by l.seq
      limit wanted
    loop
      cursor := r.cursor;
      item := r.item;
      return next;
      bytes := bytes + octet_length(r.item::text);
      exit when bytes >= budget;
    end loop;
  elsif p_section = 'runs' then
    for r in
      select x.seq::text as cursor, jsonb_build_object(
        'id', x.id, 'sessionId', x.session_id, 'status', x.status,
        'stopReason', x.stop_reason, 'request', x.request, 'error', x.error,
        'createdAt', x.created_at, 'updatedAt', x.updated_at
      ) as item
      from public.mcp_runs x
      where x.owner = owner_key and x.seq > coalesce(p_after::bigint, -1)
      order by x.seq
      limit wanted
    loop
      cursor := r.cursor;
      item := r.item;
      return next;
      bytes := bytes + octet_length(r.item::text);
      exit when bytes >= budget;
    end loop;
  elsif p_section = 'toolCalls' then
    -- Through (caller, created_at): the cursor is "created_at|id".
    after_time := coalesce(split_part(p_after, '|', 1)::timestamptz, '-infinity');
    after_id := coalesce(nullif(split_part(p_after, '|', 2), '')::bigint, -1);
    for r in
      select e.created_at::text || '|' || e.id::text as cursor, jsonb_build_object(
        'source', e.source, 'sessionId', e.session_id, 'tool', e.tool, 'input', e.input,
        'output', e.output, 'success', e.success, 'error', e.error,
        'durationMs', e.duration_ms, 'createdAt', e.created_at
      ) as item
      from public.mcp_events e
      where e.caller = owner_key and e.created_at >= after_time
        and (e.created_at, e.id) > (after_time, after_id)
      order by e.created_at, e.id
      limit wanted
    loop
      cursor := r.cursor;
      item := r.item;
      return next;
      bytes := bytes + octet_length(r.item::text);
      exit when bytes >= budget;
    end loop;
  else
    raise exception 'export has no section %', p_section using errcode = '22023';
  end if;
end
$$;
revoke execute on function public.export_chat_page(text, text, text, integer, integer)
  from public, anon;
grant execute on function public.export_chat_page(text, text, text, integer, integer)
  to authenticated, service_role;

-- The whole document in one value is gone: nothing may build it any more.
drop function if exists public.export_chat_caller(text);
