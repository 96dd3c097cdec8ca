-- An export holds the caller's session summaries too (compaction's
-- session_summaries, which hold what older messages said): the document of
-- 20261127100200_forgetting.sql with `sessionSummaries` added.
create or replace function public.export_chat_caller(p_owner text)
returns jsonb
language sql stable
set search_path = public, pg_temp
as $$
  with me as (select public.chat_owner(p_owner) as owner_key)
  select jsonb_build_object(
    'owner', me.owner_key,
    'exportedAt', clock_timestamp(),
    'messages', coalesce((
      select jsonb_agg(jsonb_build_object(
        'id', m.id, 'sessionId', m.session_id, 'role', m.role, 'content', m.content,
        'createdAt', m.created_at, 'embeddingModel', m.embedding_model, 'runId', m.run_id
      ) order by m.seq)
      from public.chat_messages m where m.owner = me.owner_key
    ), '[]'),
    'sessionSummaries', coalesce((
      select jsonb_agg(jsonb_build_object(
        'sessionId', s.session_id, 'summary', s.summary,
        'coveredMessages', s.covered_messages, 'updatedAt', s.updated_at
      ) order by s.session_id)
      from public.session_summaries s where s.owner = me.owner_key
    ), '[]'),
    'workingMemory', (
      select w.document from public.working_memory w where w.owner = me.owner_key
    ),
    'loops', coalesce((
      select jsonb_agg(jsonb_build_object(
        'id', l.id, 'loopType', l.loop_type, 'status', l.status,
        'currentScore', l.current_score, 'scoreHistory', l.score_history,
        'iteration', l.iteration, 'threshold', l.threshold,
        'maxIterations', l.max_iterations, 'createdAt', l.created_at, 'updatedAt', l.updated_at
      ) order by l.seq)
      from public.refinement_loops l where l.owner = me.owner_key
    ), '[]'),
    'runs', coalesce((
      select jsonb_agg(jsonb_build_object(
        'id', r.id, 'sessionId', r.session_id, 'status', r.status,
        'stopReason', r.stop_reason, 'request', r.request, 'error', r.error,
        'createdAt', r.created_at, 'updatedAt', r.updated_at
      ) order by r.seq)
      from public.mcp_runs r where r.owner = me.owner_key
    ), '[]'),
    'toolCalls', coalesce((
      select jsonb_agg(jsonb_build_object(
        'source', e.source, 'sessionId', e.session_id, 'tool', e.tool, 'input', e.input,
        'output', e.output, 'success', e.success, 'error', e.error,
        'durationMs', e.duration_ms, 'createdAt', e.created_at
      ) order by e.id)
      from public.mcp_events e where e.caller = me.owner_key
    ), '[]')
  )
  from me
$$;
