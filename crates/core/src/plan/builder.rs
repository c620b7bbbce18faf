//! `ExecutionPlan::builder()`: plans from code, checked like plans from JSON.

use super::{ExecutionPlan, Limits, PlanIssue, PlanRollback, PlanValidation, RollbackStrategy};

/// Builds an [`ExecutionPlan`]; unset fields take the documented defaults.
#[derive(Debug, Clone, Default)]
pub struct ExecutionPlanBuilder {
    dry_run: Option<bool>,
    validation: PlanValidation,
    strategy: Option<RollbackStrategy>,
    rollback_commands: Vec<String>,
    limits: Limits,
    batch: bool,
}

impl ExecutionPlanBuilder {
    pub fn dry_run(mut self, dry_run: bool) -> Self {
        self.dry_run = Some(dry_run);
        self
    }
    pub fn pre_condition(mut self, command: impl Into<String>) -> Self {
        self.validation.pre_conditions.push(command.into());
        self
    }
    pub fn expected_outcome(mut self, command: impl Into<String>) -> Self {
        self.validation.expected_outcomes.push(command.into());
        self
    }
    pub fn rollback(mut self, strategy: RollbackStrategy) -> Self {
        self.strategy = Some(strategy);
        self
    }
    pub fn rollback_command(mut self, command: impl Into<String>) -> Self {
        self.rollback_commands.push(command.into());
        self
    }
    pub fn max_files(mut self, n: i64) -> Self {
        self.limits.max_files = n;
        self
    }
    pub fn max_changes(mut self, n: i64) -> Self {
        self.limits.max_changes = n;
        self
    }
    pub fn timeout_seconds(mut self, n: i64) -> Self {
        self.limits.timeout_seconds = n;
        self
    }
    pub fn batch(mut self, batch: bool) -> Self {
        self.batch = batch;
        self
    }

    /// The plan, or every problem with it.
    pub fn build(self) -> Result<ExecutionPlan, Vec<PlanIssue>> {
        let missing_rollback = self.strategy.is_none();
        let plan = ExecutionPlan {
            dry_run: self.dry_run.unwrap_or(true),
            validation: self.validation,
            rollback: PlanRollback {
                strategy: self.strategy.unwrap_or(RollbackStrategy::GitRevert),
                commands: self.rollback_commands,
            },
            limits: self.limits,
            batch: self.batch,
        };
        let mut issues = Vec::new();
        if missing_rollback {
            issues.push(super::parse::missing_rollback());
        }
        plan.validated(issues)
    }
}
