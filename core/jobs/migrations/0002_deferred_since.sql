-- When the job's current run of deferrals (Ollama or the model unavailable)
-- began; NULL once a run ends ok or failed. doctor names a job deferred for
-- an hour, which the bounded job_runs history cannot tell by itself.
ALTER TABLE jobs ADD COLUMN deferred_since TEXT;
