--
-- PostgreSQL database dump
--


-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: -; Type: SCHEMA; Schema: -; Owner: -
--



SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: assets; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE assets (
    id character varying NOT NULL,
    org_id character varying NOT NULL,
    type character varying NOT NULL,
    name character varying NOT NULL,
    filename character varying NOT NULL,
    storage_key character varying NOT NULL,
    file_size bigint NOT NULL,
    metadata text DEFAULT '{}'::text NOT NULL,
    scope character varying NOT NULL,
    status character varying DEFAULT 'processing'::character varying NOT NULL,
    category character varying,
    thumbnail_key character varying,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
);


--
-- Name: jobs; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE jobs (
    id character varying NOT NULL,
    org_id character varying NOT NULL,
    user_id character varying,
    batch_id character varying,
    type character varying NOT NULL,
    status character varying DEFAULT 'waiting'::character varying NOT NULL,
    provider_id character varying,
    provider_type character varying,
    provider_run_id character varying,
    ai_pattern character varying,
    inputs text NOT NULL,
    params text NOT NULL,
    output_ref character varying,
    output_meta text,
    error_code character varying,
    error_message text,
    logs_ref character varying,
    steps_json text,
    media_type character varying,
    pipeline_id character varying,
    pipeline_node_id character varying,
    output_key character varying,
    pending_inputs bigint DEFAULT 0 NOT NULL,
    available_at bigint DEFAULT 0 NOT NULL,
    lease_owner character varying,
    lease_expires_at bigint,
    price double precision,
    provider_cost double precision,
    infra_cost double precision,
    margin double precision,
    estimated_price double precision,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    dispatched_at bigint,
    started_at bigint,
    completed_at bigint,
    billing_reconciled_at bigint,
    retry_count bigint DEFAULT 0 NOT NULL,
    progress double precision DEFAULT 0 NOT NULL,
    api_total_ms bigint,
    api_prechecks_ms bigint,
    api_validation_ms bigint,
    api_db_insert_ms bigint,
    api_dispatch_ms bigint,
    exec_download_ms bigint,
    exec_execute_ms bigint,
    exec_upload_ms bigint,
    queue_wait_ms bigint,
    consumer_total_ms bigint,
    idempotency_key character varying,
    request_hash character varying
);


--
-- Name: pipelines; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE pipelines (
    id character varying NOT NULL,
    org_id character varying NOT NULL,
    name character varying NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    graph bytea NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
);


--
-- Name: render_jobs; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE render_jobs (
    id character varying NOT NULL,
    org_id character varying DEFAULT 'default'::character varying NOT NULL,
    provider character varying NOT NULL,
    composition bytea NOT NULL,
    asset_urls jsonb,
    webhook_url character varying,
    status character varying DEFAULT 'queued'::character varying NOT NULL,
    progress double precision DEFAULT 0 NOT NULL,
    output_key character varying,
    error_code character varying,
    error_message character varying,
    format character varying NOT NULL,
    width bigint NOT NULL,
    height bigint NOT NULL,
    duration double precision NOT NULL,
    idempotency_key character varying,
    request_hash character varying NOT NULL,
    attempts bigint DEFAULT 0 NOT NULL,
    lease_owner character varying,
    lease_expires_at timestamp with time zone,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone
);


--
-- Name: webhook_deliveries; Type: TABLE; Schema: -; Owner: -
--

CREATE TABLE webhook_deliveries (
    id character varying NOT NULL,
    job_id character varying NOT NULL,
    url character varying NOT NULL,
    payload bytea NOT NULL,
    status character varying DEFAULT 'pending'::character varying NOT NULL,
    attempts bigint DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone NOT NULL,
    last_status_code bigint,
    last_error character varying,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL
);


--
-- Data for Name: assets; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO assets (id, org_id, type, name, filename, storage_key, file_size, metadata, scope, status, category, thumbnail_key, created_at, updated_at) VALUES ('ast_01a207ee200077f7aa14c42c1ae08c3a', 'org-a', 'image', 'Logo', 'logo.png', 'assets/org-a/ast_01a207ee200077f7aa14c42c1ae08c3a/logo.png', 554, '{"contentType":"image/png","format":"png","height":48,"width":64}', 'org', 'ready', 'print', 'assets/org-a/ast_01a207ee200077f7aa14c42c1ae08c3a.thumbnail.png', 1795429376306, 1795429376306);
INSERT INTO assets (id, org_id, type, name, filename, storage_key, file_size, metadata, scope, status, category, thumbnail_key, created_at, updated_at) VALUES ('ast_01a207ee213e710eba97e3f9688e8848', 'org-a', 'font', 'tiny.ttf', 'tiny.ttf', 'assets/org-a/ast_01a207ee213e710eba97e3f9688e8848/tiny.ttf', 12, '{"contentType":"font/ttf","format":"ttf"}', 'org', 'ready', NULL, NULL, 1795429376318, 1795429376318);
INSERT INTO assets (id, org_id, type, name, filename, storage_key, file_size, metadata, scope, status, category, thumbnail_key, created_at, updated_at) VALUES ('ast_01a207ee2142720fb5d745a1bf221d84', 'system', 'psd_template', 'Mug', 'mug.psd', 'assets/system/ast_01a207ee2142720fb5d745a1bf221d84/mug.psd', 3640, '{"contentType":"image/vnd.adobe.photoshop","format":"psd","height":30,"width":40}', 'system', 'ready', 'drinkware', 'assets/system/ast_01a207ee2142720fb5d745a1bf221d84.thumbnail.png', 1795429377094, 1795429377094);


--
-- Data for Name: jobs; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO jobs (id, org_id, user_id, batch_id, type, status, provider_id, provider_type, provider_run_id, ai_pattern, inputs, params, output_ref, output_meta, error_code, error_message, logs_ref, steps_json, media_type, pipeline_id, pipeline_node_id, output_key, pending_inputs, available_at, lease_owner, lease_expires_at, price, provider_cost, infra_cost, margin, estimated_price, created_at, updated_at, dispatched_at, started_at, completed_at, billing_reconciled_at, retry_count, progress, api_total_ms, api_prechecks_ms, api_validation_ms, api_db_insert_ms, api_dispatch_ms, exec_download_ms, exec_execute_ms, exec_upload_ms, queue_wait_ms, consumer_total_ms, idempotency_key, request_hash) VALUES ('job_01a207ee245a7a5ba001399dd2f41e01', 'org-a', NULL, 'run_01a207ee245a7a5ba001399dd2f41ef3', 'caption.burn', 'waiting', 'ffmpeg', 'subtitles (libass)', NULL, 'transform', '{"source":"http://kino.example/files/jobs/org-a/job_01a207ee245a7a5ba001399dd2f41e00/outputUrl.mp4","subtitles":"http://kino.example/files/jobs/org-a/job_01a207ee245a7a5ba001399dd2f41e00/captionsUrl.vtt"}', '{}', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'pl_01a207ee244c7208b537fb44b2a99e9d', 'burn', NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1795429377114, 1795429378250, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO jobs (id, org_id, user_id, batch_id, type, status, provider_id, provider_type, provider_run_id, ai_pattern, inputs, params, output_ref, output_meta, error_code, error_message, logs_ref, steps_json, media_type, pipeline_id, pipeline_node_id, output_key, pending_inputs, available_at, lease_owner, lease_expires_at, price, provider_cost, infra_cost, margin, estimated_price, created_at, updated_at, dispatched_at, started_at, completed_at, billing_reconciled_at, retry_count, progress, api_total_ms, api_prechecks_ms, api_validation_ms, api_db_insert_ms, api_dispatch_ms, exec_download_ms, exec_execute_ms, exec_upload_ms, queue_wait_ms, consumer_total_ms, idempotency_key, request_hash) VALUES ('job_01a207ee245a7a5ba001399dd2f41e00', 'org-a', NULL, 'run_01a207ee245a7a5ba001399dd2f41ef3', 'caption.extract', 'complete', 'ffmpeg', 'asr (pocketsphinx en-us)', NULL, 'analyze', '{"source":"http://127.0.0.1:36873/subbed.mp4"}', '{}', 'jobs/org-a/job_01a207ee245a7a5ba001399dd2f41e00/outputUrl.mp4', '{"captionsUrl":"http://kino.example/files/jobs/org-a/job_01a207ee245a7a5ba001399dd2f41e00/captionsUrl.vtt","contentType":"video/mp4","duration":1,"height":64,"outputUrl":"http://kino.example/files/jobs/org-a/job_01a207ee245a7a5ba001399dd2f41e00/outputUrl.mp4","sizeBytes":12354,"transcript":"hello upgrade","videoCodec":"h264","width":64}', NULL, NULL, 'jobs/org-a/job_01a207ee245a7a5ba001399dd2f41e00/ffmpeg.log', '[{"step":"download","ms":1},{"step":"execute","ms":494},{"step":"upload","ms":6}]', NULL, 'pl_01a207ee244c7208b537fb44b2a99e9d', 'extract', 'jobs/org-a/job_01a207ee245a7a5ba001399dd2f41e00/outputUrl.mp4', 0, 0, NULL, NULL, 0.004, NULL, NULL, NULL, NULL, 1795429377114, 1795429378234, 1795429377714, 1795429377728, 1795429378234, NULL, 0, 100, NULL, NULL, NULL, NULL, NULL, 1, 494, 6, 600, 505, 'run-half-done', 'ce603b61d95a3b3b963e29839fc5f38e1d8c6ed5ba64e96e22141ca1fc28b41f');
INSERT INTO jobs (id, org_id, user_id, batch_id, type, status, provider_id, provider_type, provider_run_id, ai_pattern, inputs, params, output_ref, output_meta, error_code, error_message, logs_ref, steps_json, media_type, pipeline_id, pipeline_node_id, output_key, pending_inputs, available_at, lease_owner, lease_expires_at, price, provider_cost, infra_cost, margin, estimated_price, created_at, updated_at, dispatched_at, started_at, completed_at, billing_reconciled_at, retry_count, progress, api_total_ms, api_prechecks_ms, api_validation_ms, api_db_insert_ms, api_dispatch_ms, exec_download_ms, exec_execute_ms, exec_upload_ms, queue_wait_ms, consumer_total_ms, idempotency_key, request_hash) VALUES ('job_01a207ee26f37accad1b5d7fd5be256d', 'org-a', NULL, NULL, 'image.resize', 'complete', 'ffmpeg', 'scale', NULL, 'transform', '{"source":"ast_01a207ee200077f7aa14c42c1ae08c3a"}', '{"width":32}', 'jobs/org-a/job_01a207ee26f37accad1b5d7fd5be256d/outputUrl.png', '{"contentType":"image/png","height":24,"outputUrl":"http://kino.example/files/jobs/org-a/job_01a207ee26f37accad1b5d7fd5be256d/outputUrl.png","sizeBytes":989,"videoCodec":"png","width":32}', NULL, NULL, 'jobs/org-a/job_01a207ee26f37accad1b5d7fd5be256d/ffmpeg.log', '[{"step":"download","ms":36},{"step":"execute","ms":262},{"step":"upload","ms":0}]', NULL, NULL, NULL, 'jobs/org-a/job_01a207ee26f37accad1b5d7fd5be256d/outputUrl.png', 0, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL, 1795429377778, 1795429378576, 1795429378266, 1795429378271, 1795429378576, NULL, 0, 100, 11, 0, 7, 4, 0, 36, 262, 0, 488, 305, 'job-complete', '52e4c5866466e35ba7276867472ea925f2522e68827fdbfbaec4352271a12edc');
INSERT INTO jobs (id, org_id, user_id, batch_id, type, status, provider_id, provider_type, provider_run_id, ai_pattern, inputs, params, output_ref, output_meta, error_code, error_message, logs_ref, steps_json, media_type, pipeline_id, pipeline_node_id, output_key, pending_inputs, available_at, lease_owner, lease_expires_at, price, provider_cost, infra_cost, margin, estimated_price, created_at, updated_at, dispatched_at, started_at, completed_at, billing_reconciled_at, retry_count, progress, api_total_ms, api_prechecks_ms, api_validation_ms, api_db_insert_ms, api_dispatch_ms, exec_download_ms, exec_execute_ms, exec_upload_ms, queue_wait_ms, consumer_total_ms, idempotency_key, request_hash) VALUES ('job_01a207ee27007b9ab9804759d59d04dc', 'org-a', NULL, NULL, 'video.trim', 'failed', 'ffmpeg', 'trim', NULL, 'transform', '{"source":"http://127.0.0.1:38557/missing.mp4"}', '{"duration":1,"start":0}', NULL, NULL, 'ASSET_FETCH_FAILED', 'inputs.source: fetch http://127.0.0.1:38557/missing.mp4: the server answered 404 Not Found', NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1795429377792, 1795429378600, 1795429378587, 1795429378597, 1795429378600, NULL, 0, 0, 1, 0, 0, 1, 0, NULL, NULL, NULL, 795, NULL, NULL, NULL);
INSERT INTO jobs (id, org_id, user_id, batch_id, type, status, provider_id, provider_type, provider_run_id, ai_pattern, inputs, params, output_ref, output_meta, error_code, error_message, logs_ref, steps_json, media_type, pipeline_id, pipeline_node_id, output_key, pending_inputs, available_at, lease_owner, lease_expires_at, price, provider_cost, infra_cost, margin, estimated_price, created_at, updated_at, dispatched_at, started_at, completed_at, billing_reconciled_at, retry_count, progress, api_total_ms, api_prechecks_ms, api_validation_ms, api_db_insert_ms, api_dispatch_ms, exec_download_ms, exec_execute_ms, exec_upload_ms, queue_wait_ms, consumer_total_ms, idempotency_key, request_hash) VALUES ('job_01a207ee270979f7bc9fc42c6bb69b00', 'org-a', NULL, 'run_01a207ee270979f7bc9fc42c6bb69b56', 'caption.extract', 'complete', 'ffmpeg', 'asr (pocketsphinx en-us)', NULL, 'analyze', '{"source":"http://127.0.0.1:36873/subbed.mp4"}', '{}', 'jobs/org-a/job_01a207ee270979f7bc9fc42c6bb69b00/outputUrl.mp4', '{"captionsUrl":"http://kino.example/files/jobs/org-a/job_01a207ee270979f7bc9fc42c6bb69b00/captionsUrl.vtt","contentType":"video/mp4","duration":1,"height":64,"outputUrl":"http://kino.example/files/jobs/org-a/job_01a207ee270979f7bc9fc42c6bb69b00/outputUrl.mp4","sizeBytes":12354,"transcript":"hello upgrade","videoCodec":"h264","width":64}', NULL, NULL, 'jobs/org-a/job_01a207ee270979f7bc9fc42c6bb69b00/ffmpeg.log', '[{"step":"download","ms":0},{"step":"execute","ms":351},{"step":"upload","ms":1}]', NULL, 'pl_01a207ee244c7208b537fb44b2a99e9d', 'extract', 'jobs/org-a/job_01a207ee270979f7bc9fc42c6bb69b00/outputUrl.mp4', 0, 0, NULL, NULL, 0.004, NULL, NULL, NULL, NULL, 1795429377802, 1795429378987, 1795429378622, 1795429378631, 1795429378987, NULL, 0, 100, NULL, NULL, NULL, NULL, NULL, 0, 351, 1, 820, 356, NULL, NULL);
INSERT INTO jobs (id, org_id, user_id, batch_id, type, status, provider_id, provider_type, provider_run_id, ai_pattern, inputs, params, output_ref, output_meta, error_code, error_message, logs_ref, steps_json, media_type, pipeline_id, pipeline_node_id, output_key, pending_inputs, available_at, lease_owner, lease_expires_at, price, provider_cost, infra_cost, margin, estimated_price, created_at, updated_at, dispatched_at, started_at, completed_at, billing_reconciled_at, retry_count, progress, api_total_ms, api_prechecks_ms, api_validation_ms, api_db_insert_ms, api_dispatch_ms, exec_download_ms, exec_execute_ms, exec_upload_ms, queue_wait_ms, consumer_total_ms, idempotency_key, request_hash) VALUES ('job_01a207ee270979f7bc9fc42c6bb69b01', 'org-a', NULL, 'run_01a207ee270979f7bc9fc42c6bb69b56', 'caption.burn', 'complete', 'ffmpeg', 'subtitles (libass)', NULL, 'transform', '{"source":"http://kino.example/files/jobs/org-a/job_01a207ee270979f7bc9fc42c6bb69b00/outputUrl.mp4","subtitles":"http://kino.example/files/jobs/org-a/job_01a207ee270979f7bc9fc42c6bb69b00/captionsUrl.vtt"}', '{}', 'jobs/org-a/job_01a207ee270979f7bc9fc42c6bb69b01/outputUrl.mp4', '{"contentType":"video/mp4","duration":1,"height":64,"outputUrl":"http://kino.example/files/jobs/org-a/job_01a207ee270979f7bc9fc42c6bb69b01/outputUrl.mp4","sizeBytes":6104,"videoCodec":"h264","width":64}', NULL, NULL, 'jobs/org-a/job_01a207ee270979f7bc9fc42c6bb69b01/ffmpeg.log', '[{"step":"download","ms":236},{"step":"execute","ms":310},{"step":"upload","ms":4}]', NULL, 'pl_01a207ee244c7208b537fb44b2a99e9d', 'burn', 'jobs/org-a/job_01a207ee270979f7bc9fc42c6bb69b01/outputUrl.mp4', 0, 0, NULL, NULL, 0.002, NULL, NULL, NULL, NULL, 1795429377802, 1795429379562, 1795429379005, 1795429379006, 1795429379562, NULL, 0, 100, NULL, NULL, NULL, NULL, NULL, 236, 310, 4, 1203, 555, NULL, NULL);
INSERT INTO jobs (id, org_id, user_id, batch_id, type, status, provider_id, provider_type, provider_run_id, ai_pattern, inputs, params, output_ref, output_meta, error_code, error_message, logs_ref, steps_json, media_type, pipeline_id, pipeline_node_id, output_key, pending_inputs, available_at, lease_owner, lease_expires_at, price, provider_cost, infra_cost, margin, estimated_price, created_at, updated_at, dispatched_at, started_at, completed_at, billing_reconciled_at, retry_count, progress, api_total_ms, api_prechecks_ms, api_validation_ms, api_db_insert_ms, api_dispatch_ms, exec_download_ms, exec_execute_ms, exec_upload_ms, queue_wait_ms, consumer_total_ms, idempotency_key, request_hash) VALUES ('job_01a207ee245a7a5ba001399dd2f41e02', 'org-a', NULL, 'run_01a207ee245a7a5ba001399dd2f41ef3', 'watermark.apply', 'waiting', 'ffmpeg', 'overlay,drawtext', NULL, 'transform', '{}', '{"watermarks":[{"assetId":"ast_01a207ee200077f7aa14c42c1ae08c3a","position":"top-right","type":"image"}]}', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'pl_01a207ee244c7208b537fb44b2a99e9d', 'brand', NULL, 1, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1795429377114, 1795429377114, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO jobs (id, org_id, user_id, batch_id, type, status, provider_id, provider_type, provider_run_id, ai_pattern, inputs, params, output_ref, output_meta, error_code, error_message, logs_ref, steps_json, media_type, pipeline_id, pipeline_node_id, output_key, pending_inputs, available_at, lease_owner, lease_expires_at, price, provider_cost, infra_cost, margin, estimated_price, created_at, updated_at, dispatched_at, started_at, completed_at, billing_reconciled_at, retry_count, progress, api_total_ms, api_prechecks_ms, api_validation_ms, api_db_insert_ms, api_dispatch_ms, exec_download_ms, exec_execute_ms, exec_upload_ms, queue_wait_ms, consumer_total_ms, idempotency_key, request_hash) VALUES ('job_01a207ee270979f7bc9fc42c6bb69b02', 'org-a', NULL, 'run_01a207ee270979f7bc9fc42c6bb69b56', 'watermark.apply', 'complete', 'ffmpeg', 'overlay,drawtext', NULL, 'transform', '{"source":"http://kino.example/files/jobs/org-a/job_01a207ee270979f7bc9fc42c6bb69b01/outputUrl.mp4"}', '{"watermarks":[{"assetId":"ast_01a207ee200077f7aa14c42c1ae08c3a","position":"top-right","type":"image"}]}', 'jobs/org-a/job_01a207ee270979f7bc9fc42c6bb69b02/outputUrl.mp4', '{"contentType":"video/mp4","duration":1,"height":64,"outputUrl":"http://kino.example/files/jobs/org-a/job_01a207ee270979f7bc9fc42c6bb69b02/outputUrl.mp4","sizeBytes":5955,"videoCodec":"h264","width":64}', NULL, NULL, 'jobs/org-a/job_01a207ee270979f7bc9fc42c6bb69b02/ffmpeg.log', '[{"step":"download","ms":0},{"step":"execute","ms":558},{"step":"upload","ms":0}]', NULL, 'pl_01a207ee244c7208b537fb44b2a99e9d', 'brand', 'jobs/org-a/job_01a207ee270979f7bc9fc42c6bb69b02/outputUrl.mp4', 0, 0, NULL, NULL, 0.002, NULL, NULL, NULL, NULL, 1795429377802, 1795429380147, 1795429379571, 1795429379579, 1795429380147, NULL, 0, 100, NULL, NULL, NULL, NULL, NULL, 0, 558, 0, 1769, 568, NULL, NULL);
INSERT INTO jobs (id, org_id, user_id, batch_id, type, status, provider_id, provider_type, provider_run_id, ai_pattern, inputs, params, output_ref, output_meta, error_code, error_message, logs_ref, steps_json, media_type, pipeline_id, pipeline_node_id, output_key, pending_inputs, available_at, lease_owner, lease_expires_at, price, provider_cost, infra_cost, margin, estimated_price, created_at, updated_at, dispatched_at, started_at, completed_at, billing_reconciled_at, retry_count, progress, api_total_ms, api_prechecks_ms, api_validation_ms, api_db_insert_ms, api_dispatch_ms, exec_download_ms, exec_execute_ms, exec_upload_ms, queue_wait_ms, consumer_total_ms, idempotency_key, request_hash) VALUES ('job_01a207ee32cd7ba0baad419601c6d443', 'org-a', NULL, NULL, 'image.resize', 'waiting', 'ffmpeg', 'scale', NULL, 'transform', '{"source":"ast_01a207ee200077f7aa14c42c1ae08c3a"}', '{"width":16}', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1795429380811, 1795429380811, NULL, NULL, NULL, NULL, 0, 0, 10, 0, 1, 8, 0, NULL, NULL, NULL, NULL, NULL, 'job-waiting', '31a02dead320c41c5fd4c4c69e03bc5f8f5d2f77352efab10d49fd81726191b8');
INSERT INTO jobs (id, org_id, user_id, batch_id, type, status, provider_id, provider_type, provider_run_id, ai_pattern, inputs, params, output_ref, output_meta, error_code, error_message, logs_ref, steps_json, media_type, pipeline_id, pipeline_node_id, output_key, pending_inputs, available_at, lease_owner, lease_expires_at, price, provider_cost, infra_cost, margin, estimated_price, created_at, updated_at, dispatched_at, started_at, completed_at, billing_reconciled_at, retry_count, progress, api_total_ms, api_prechecks_ms, api_validation_ms, api_db_insert_ms, api_dispatch_ms, exec_download_ms, exec_execute_ms, exec_upload_ms, queue_wait_ms, consumer_total_ms, idempotency_key, request_hash) VALUES ('job_01a207ee32dc757082804170f23dc8b3', 'org-a', NULL, NULL, 'watermark.apply', 'cancelled', 'ffmpeg', 'overlay,drawtext', NULL, 'transform', '{"source":"https://cdn.example/video.mp4"}', '{"watermarks":[{"position":"bottom-right","type":"image","url":"https://cdn.example/logo.png"}]}', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1795429380828, 1795429380837, NULL, NULL, 1795429380837, NULL, 0, 0, 4, 0, 0, 4, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO jobs (id, org_id, user_id, batch_id, type, status, provider_id, provider_type, provider_run_id, ai_pattern, inputs, params, output_ref, output_meta, error_code, error_message, logs_ref, steps_json, media_type, pipeline_id, pipeline_node_id, output_key, pending_inputs, available_at, lease_owner, lease_expires_at, price, provider_cost, infra_cost, margin, estimated_price, created_at, updated_at, dispatched_at, started_at, completed_at, billing_reconciled_at, retry_count, progress, api_total_ms, api_prechecks_ms, api_validation_ms, api_db_insert_ms, api_dispatch_ms, exec_download_ms, exec_execute_ms, exec_upload_ms, queue_wait_ms, consumer_total_ms, idempotency_key, request_hash) VALUES ('job_01a207ee32ed7e859e497d7b44c8d9d8', 'org-b', NULL, NULL, 'video.trim', 'cancelled', 'ffmpeg', 'trim', NULL, 'transform', '{"source":"https://cdn.example/v.mp4"}', '{"duration":2,"start":1}', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1795429380845, 1795429380857, NULL, NULL, 1795429380857, NULL, 0, 0, 1, 0, 0, 1, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL);


--
-- Data for Name: pipelines; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO pipelines (id, org_id, name, description, graph, created_at, updated_at) VALUES ('pl_01a207ee244c7208b537fb44b2a99e9d', 'org-a', 'caption and brand', 'extract captions, burn them, watermark', '\x7b226e6f646573223a5b7b226964223a2265787472616374222c20226a6f6254797065223a2263617074696f6e2e65787472616374222c2022706172616d73223a7b7d7d2c207b226964223a226275726e222c20226a6f6254797065223a2263617074696f6e2e6275726e222c2022706172616d73223a7b7d7d2c207b226964223a226272616e64222c20226a6f6254797065223a2277617465726d61726b2e6170706c79222c2022706172616d73223a7b2277617465726d61726b73223a5b7b2261737365744964223a226173745f3031613230376565323030303737663761613134633432633161653038633361222c2022706f736974696f6e223a22746f702d7269676874222c202274797065223a22696d616765227d5d7d7d5d2c20226564676573223a5b7b2266726f6d223a2265787472616374222c2022746f223a226275726e222c20226f75747075744d617070696e67223a7b22736f757263654669656c64223a2263617074696f6e7355726c222c20227461726765744669656c64223a227375627469746c6573227d7d2c207b2266726f6d223a2265787472616374222c2022746f223a226275726e222c20226f75747075744d617070696e67223a7b22736f757263654669656c64223a226f757470757455726c222c20227461726765744669656c64223a22736f75726365227d7d2c207b2266726f6d223a226275726e222c2022746f223a226272616e64222c20226f75747075744d617070696e67223a7b22736f757263654669656c64223a226f757470757455726c222c20227461726765744669656c64223a22736f75726365227d7d5d7d', 1795429377100, 1795429377100);
INSERT INTO pipelines (id, org_id, name, description, graph, created_at, updated_at) VALUES ('pl_01a207ee24527e0f88cbbf022177ec26', 'org-b', 'two sizes', '', '\x7b226e6f646573223a5b7b226964223a22736d616c6c222c20226a6f6254797065223a22696d6167652e726573697a65222c2022706172616d73223a7b227769647468223a33327d7d2c207b226964223a22736d616c6c6572222c20226a6f6254797065223a22696d6167652e726573697a65222c2022706172616d73223a7b227769647468223a31367d7d5d2c20226564676573223a5b7b2266726f6d223a22736d616c6c222c2022746f223a22736d616c6c6572222c20226f75747075744d617070696e67223a7b22736f757263654669656c64223a226f757470757455726c222c20227461726765744669656c64223a22736f75726365227d7d5d7d', 1795429377106, 1795429377106);


--
-- Data for Name: render_jobs; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO render_jobs (id, org_id, provider, composition, asset_urls, webhook_url, status, progress, output_key, error_code, error_message, format, width, height, duration, idempotency_key, request_hash, attempts, lease_owner, lease_expires_at, created_at, updated_at, started_at, finished_at) VALUES ('01a207ee-26be-757f-9abf-3d90238fd632', 'org-a', 'provider_a', '\x7b226261636b67726f756e64223a2223323033303430222c20226475726174696f6e223a312c2022667073223a31302c2022686569676874223a36342c20226c6179657273223a5b7b22636f6c6f72223a2223643034303230222c20226475726174696f6e223a312c20227374617274223a302c202274797065223a22636f6c6f72227d5d2c20227769647468223a36347d', 'null', 'http://127.0.0.1:43203/done', 'completed', 100, 'renders/01a207ee-26be-757f-9abf-3d90238fd632.mp4', NULL, NULL, 'mp4', 64, 64, 1, 'render-completed', 'ccd80845997880201b703a93347d8ef44889e595c6809f5d77f857c2c6d91a82', 1, NULL, NULL, '2026-11-23 10:22:57.72636+00', '2026-11-23 10:22:58.381168+00', '2026-11-23 10:22:57.769017+00', '2026-11-23 10:22:58.38117+00');
INSERT INTO render_jobs (id, org_id, provider, composition, asset_urls, webhook_url, status, progress, output_key, error_code, error_message, format, width, height, duration, idempotency_key, request_hash, attempts, lease_owner, lease_expires_at, created_at, updated_at, started_at, finished_at) VALUES ('01a207ee-26e0-70ce-addc-32d5de5cd237', 'org-a', 'provider_a', '\x7b22667073223a31302c2022686569676874223a36342c20226c6179657273223a5b7b226475726174696f6e223a312c2022737263223a22636c6970222c20227374617274223a302c202274797065223a22766964656f227d5d2c20227769647468223a36347d', '{"clip": "http://127.0.0.1:38557/missing.mp4"}', 'http://127.0.0.1:48732/hook', 'failed', 0, NULL, 'ASSET_FETCH_FAILED', 'composition.layers[0].src: fetch http://127.0.0.1:38557/missing.mp4: the server answered 404 Not Found', 'mp4', 64, 64, 1, NULL, '4c592f21951d136428efa13b4519d51477dd42e9f8a00324aa570b2a9f5e58ae', 1, NULL, NULL, '2026-11-23 10:22:57.760052+00', '2026-11-23 10:22:58.397061+00', '2026-11-23 10:22:58.389328+00', '2026-11-23 10:22:58.397062+00');
INSERT INTO render_jobs (id, org_id, provider, composition, asset_urls, webhook_url, status, progress, output_key, error_code, error_message, format, width, height, duration, idempotency_key, request_hash, attempts, lease_owner, lease_expires_at, created_at, updated_at, started_at, finished_at) VALUES ('01a207ee-32ad-7485-946d-bdf02c7fb148', 'org-a', 'provider_a', '\x7b226261636b67726f756e64223a2223323033303430222c20226475726174696f6e223a312c2022667073223a31302c2022686569676874223a36342c20226c6179657273223a5b7b22636f6c6f72223a2223643034303230222c20226475726174696f6e223a312c20227374617274223a302c202274797065223a22636f6c6f72227d5d2c20227769647468223a36347d', 'null', '', 'queued', 0, NULL, NULL, NULL, 'mp4', 64, 64, 1, 'render-queued', '0466d2baffc48663b5de572a80f7d01f6705f49213db8084e06b0765b7c4ca4a', 0, NULL, NULL, '2026-11-23 10:23:00.781296+00', '2026-11-23 10:23:00.781296+00', NULL, NULL);
INSERT INTO render_jobs (id, org_id, provider, composition, asset_urls, webhook_url, status, progress, output_key, error_code, error_message, format, width, height, duration, idempotency_key, request_hash, attempts, lease_owner, lease_expires_at, created_at, updated_at, started_at, finished_at) VALUES ('01a207ee-32b4-783f-b8e8-da2be58af5ea', 'org-a', 'provider_a', '\x7b226261636b67726f756e64223a2223323033303430222c20226475726174696f6e223a312c2022667073223a31302c2022686569676874223a36342c20226c6179657273223a5b7b22636f6c6f72223a2223643034303230222c20226475726174696f6e223a312c20227374617274223a302c202274797065223a22636f6c6f72227d5d2c20227769647468223a36347d', 'null', '', 'cancelled', 0, NULL, NULL, NULL, 'mp4', 64, 64, 1, NULL, '0466d2baffc48663b5de572a80f7d01f6705f49213db8084e06b0765b7c4ca4a', 0, NULL, NULL, '2026-11-23 10:23:00.78854+00', '2026-11-23 10:23:00.794613+00', NULL, '2026-11-23 10:23:00.794614+00');
INSERT INTO render_jobs (id, org_id, provider, composition, asset_urls, webhook_url, status, progress, output_key, error_code, error_message, format, width, height, duration, idempotency_key, request_hash, attempts, lease_owner, lease_expires_at, created_at, updated_at, started_at, finished_at) VALUES ('01a207ee-32c1-7b92-af5b-5d8784bf7c68', 'org-b', 'provider_a', '\x7b226261636b67726f756e64223a2223323033303430222c20226475726174696f6e223a312c2022667073223a31302c2022686569676874223a36342c20226c6179657273223a5b7b22636f6c6f72223a2223643034303230222c20226475726174696f6e223a312c20227374617274223a302c202274797065223a22636f6c6f72227d5d2c20227769647468223a36347d', 'null', '', 'cancelled', 0, NULL, NULL, NULL, 'mp4', 64, 64, 1, NULL, '0466d2baffc48663b5de572a80f7d01f6705f49213db8084e06b0765b7c4ca4a', 0, NULL, NULL, '2026-11-23 10:23:00.801758+00', '2026-11-23 10:23:00.805252+00', NULL, '2026-11-23 10:23:00.805253+00');


--
-- Data for Name: webhook_deliveries; Type: TABLE DATA; Schema: -; Owner: -
--

INSERT INTO webhook_deliveries (id, job_id, url, payload, status, attempts, next_attempt_at, last_status_code, last_error, created_at, updated_at) VALUES ('msg_457233207f09443092ce03ea73943be6', '01a207ee-26be-757f-9abf-3d90238fd632', 'http://127.0.0.1:43203/done', '\x7b226a6f624964223a2230316132303765652d323662652d373537662d396162662d336439303233386664363332222c22737461747573223a22636f6d706c65746564222c226f757470757455726c223a22687474703a2f2f6b696e6f2e6578616d706c652f66696c65732f72656e646572732f30316132303765652d323662652d373537662d396162662d3364393032333866643633322e6d7034222c226475726174696f6e223a312c22666f726d6174223a226d7034222c227265736f6c7574696f6e223a7b227769647468223a36342c22686569676874223a36347d7d', 'delivered', 1, '2026-11-23 10:23:28.40822+00', 204, NULL, '2026-11-23 10:22:58.382391+00', '2026-11-23 10:22:58.415488+00');
INSERT INTO webhook_deliveries (id, job_id, url, payload, status, attempts, next_attempt_at, last_status_code, last_error, created_at, updated_at) VALUES ('msg_9f326997fd794a709b6465700e0c99b6', '01a207ee-26e0-70ce-addc-32d5de5cd237', 'http://127.0.0.1:48732/hook', '\x7b226a6f624964223a2230316132303765652d323665302d373063652d616464632d333264356465356364323337222c22737461747573223a226661696c6564222c226572726f72223a7b22636f6465223a2241535345545f46455443485f4641494c4544222c226d657373616765223a22636f6d706f736974696f6e2e6c61796572735b305d2e7372633a20666574636820687474703a2f2f3132372e302e302e313a33383535372f6d697373696e672e6d70343a207468652073657276657220616e73776572656420343034204e6f7420466f756e64227d2c226475726174696f6e223a312c22666f726d6174223a226d7034222c227265736f6c7574696f6e223a7b227769647468223a36342c22686569676874223a36347d7d', 'pending', 1, '2100-01-01 00:00:00+00', NULL, 'dial tcp 127.0.0.1:48732: connect: connection refused', '2026-11-23 10:22:58.398075+00', '2026-11-23 10:22:58.433036+00');


--
-- Name: assets assets_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY assets
    ADD CONSTRAINT assets_pkey PRIMARY KEY (id);


--
-- Name: jobs jobs_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY jobs
    ADD CONSTRAINT jobs_pkey PRIMARY KEY (id);


--
-- Name: pipelines pipelines_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY pipelines
    ADD CONSTRAINT pipelines_pkey PRIMARY KEY (id);


--
-- Name: render_jobs render_jobs_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY render_jobs
    ADD CONSTRAINT render_jobs_pkey PRIMARY KEY (id);


--
-- Name: webhook_deliveries webhook_deliveries_pkey; Type: CONSTRAINT; Schema: -; Owner: -
--

ALTER TABLE ONLY webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id);


--
-- Name: asset_org_id_scope_created_at_id; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX asset_org_id_scope_created_at_id ON assets USING btree (org_id, scope, created_at, id);


--
-- Name: asset_scope_type_category_created_at_id; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX asset_scope_type_category_created_at_id ON assets USING btree (scope, type, category, created_at, id);


--
-- Name: job_batch_id; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX job_batch_id ON jobs USING btree (batch_id);


--
-- Name: job_org_id_created_at_id; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX job_org_id_created_at_id ON jobs USING btree (org_id, created_at, id);


--
-- Name: job_org_id_idempotency_key; Type: INDEX; Schema: -; Owner: -
--

CREATE UNIQUE INDEX job_org_id_idempotency_key ON jobs USING btree (org_id, idempotency_key);


--
-- Name: job_org_id_status_created_at_id; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX job_org_id_status_created_at_id ON jobs USING btree (org_id, status, created_at, id);


--
-- Name: job_org_id_status_type_created_at_id; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX job_org_id_status_type_created_at_id ON jobs USING btree (org_id, status, type, created_at, id);


--
-- Name: job_org_id_type_created_at_id; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX job_org_id_type_created_at_id ON jobs USING btree (org_id, type, created_at, id);


--
-- Name: job_pipeline_id_batch_id; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX job_pipeline_id_batch_id ON jobs USING btree (pipeline_id, batch_id);


--
-- Name: job_status_created_at; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX job_status_created_at ON jobs USING btree (status, created_at);


--
-- Name: pipeline_org_id_created_at_id; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX pipeline_org_id_created_at_id ON pipelines USING btree (org_id, created_at, id);


--
-- Name: renderjob_org_id_idempotency_key; Type: INDEX; Schema: -; Owner: -
--

CREATE UNIQUE INDEX renderjob_org_id_idempotency_key ON render_jobs USING btree (org_id, idempotency_key);


--
-- Name: renderjob_status_created_at; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX renderjob_status_created_at ON render_jobs USING btree (status, created_at);


--
-- Name: renderjob_status_lease_expires_at; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX renderjob_status_lease_expires_at ON render_jobs USING btree (status, lease_expires_at);


--
-- Name: webhookdelivery_job_id; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX webhookdelivery_job_id ON webhook_deliveries USING btree (job_id);


--
-- Name: webhookdelivery_status_next_attempt_at; Type: INDEX; Schema: -; Owner: -
--

CREATE INDEX webhookdelivery_status_next_attempt_at ON webhook_deliveries USING btree (status, next_attempt_at);


--
-- PostgreSQL database dump complete
--
