module github.com/kafkabook/kafkabook/output

go 1.26
