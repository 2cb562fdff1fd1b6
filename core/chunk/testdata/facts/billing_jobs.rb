# Background jobs of the billing app: Sidekiq workers and Active Job jobs.
module Billing
  class StatementWorker
    include Sidekiq::Job
    sidekiq_options queue: :statements, retry: 5

    def perform(account_id)
      Billing::StatementMailerJob.set(wait: 10.minutes).perform_later(account_id)
    end
  end

  class StatementMailerJob < ApplicationJob
    queue_as :mailers

    def perform(account_id)
      ArchiveWorker.perform_in(3600, account_id)
    end
  end
end

class ArchiveWorker
  include Sidekiq::Worker

  def perform(id)
    id
  end
end

class Plain
  include Comparable

  def kick(list)
    StatementWorker.perform_async(1)
    list.perform_later # not a constant: no job
    Billing::StatementMailerJob.perform_now(2)
  end
end
