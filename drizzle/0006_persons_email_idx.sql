CREATE INDEX `persons_project_email_idx` ON `persons` (`project_id`,json_extract(`properties`, '$.email'));
