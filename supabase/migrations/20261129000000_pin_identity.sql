-- Row level security that pins identity. A signed-in user acting through PostgREST
-- (role authenticated) may change their own rows, but never whose rows they are: every
-- UPDATE policy checks the new row against the same identity as the old one (user_id
-- and the owner key 'user:<uid>'), and the identity columns (owner, user_id, and the
-- keys other rows or callers find a row by) are left out of the column grants, so an
-- update that names them is refused outright. Before this, the UPDATE policies checked
-- only user_id, and `update working_memory set owner = 'key:…'` moved a user's row into
-- another caller's namespace (or squatted `user:<other>` so the other user's first
-- put_working_memory found the owner taken).

-- refinement_loops: the decision writes status, scores, iteration and version.
drop policy if exists refinement_loops_update_own on public.refinement_loops;
create policy refinement_loops_update_own on public.refinement_loops
  for update to authenticated
  using (user_id = (select auth.uid()))
  with check (user_id = (select auth.uid()) and owner = 'user:' || (select auth.uid())::text);
revoke update on public.refinement_loops from anon, authenticated;
grant update (status, current_score, score_history, iteration, version, updated_at)
  on public.refinement_loops to authenticated;

-- mcp_runs: a run's writers change its state, never its owner, session or request.
drop policy if exists mcp_runs_update_own on public.mcp_runs;
create policy mcp_runs_update_own on public.mcp_runs
  for update to authenticated
  using (user_id = (select auth.uid()))
  with check (user_id = (select auth.uid()) and owner = 'user:' || (select auth.uid())::text);
revoke update on public.mcp_runs from anon, authenticated;
grant update (
  status, stop_reason, base, embedding, embedding_model, checkpoint, version, event_seq,
  cancel_requested, lease_until, error, updated_at
) on public.mcp_runs to authenticated;

-- mcp_tool_approvals: already limited to (status, decided_at); the policy pins the owner too.
drop policy if exists mcp_tool_approvals_update_own on public.mcp_tool_approvals;
create policy mcp_tool_approvals_update_own on public.mcp_tool_approvals
  for update to authenticated
  using (user_id = (select auth.uid()))
  with check (user_id = (select auth.uid()) and owner = 'user:' || (select auth.uid())::text);

-- session_summaries: compaction rewrites the summary and what it covers.
drop policy if exists session_summaries_update_own on public.session_summaries;
create policy session_summaries_update_own on public.session_summaries
  for update to authenticated
  using (user_id = (select auth.uid()))
  with check (user_id = (select auth.uid()) and owner = 'user:' || (select auth.uid())::text);
revoke update on public.session_summaries from anon, authenticated;
grant update (summary, covered_seq, covered_messages, version, updated_at)
  on public.session_summaries to authenticated;

-- working_memory: the document and its version.
drop policy if exists working_memory_update_own on public.working_memory;
create policy working_memory_update_own on public.working_memory
  for update to authenticated
  using (user_id = (select auth.uid()))
  with check (user_id = (select auth.uid()) and owner = 'user:' || (select auth.uid())::text);
revoke update on public.working_memory from anon, authenticated;
grant update (document, version, updated_at) on public.working_memory to authenticated;

-- chat_erasures: its policy already pins both; a marker's time is all an update may change.
revoke update on public.chat_erasures from anon, authenticated;
grant update (erased_at) on public.chat_erasures to authenticated;

-- Tables no update policy covers refuse every update under RLS; the grants say so too.
revoke update on public.chat_messages from anon, authenticated;
revoke update on public.mcp_run_events from anon, authenticated;
