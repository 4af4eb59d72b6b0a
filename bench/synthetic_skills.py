"""A synthetic, organisation-specific skill library for bench/skills.py, and task queries written
away from its docstrings.

Every function is one procedure of one business domain: a verb applied to a domain object, often
under a qualifier ("reconcile ledger entries for a fiscal close", "rotate vendor API credentials
when offboarding a supplier"). Each concept has one canonical wording, used in names, docstrings,
guidance titles and guidance content, and two or three paraphrases that never appear in the
library and are the only wordings the task queries use. So a query says "match up journal lines
when we shut the books" for "Reconcile ledger entries for a fiscal close."

Relevance is decided by construction, never by looking at search results:
- a query written for a function has as relevant items that function and every guidance that
  links it;
- a query written for a guidance has that guidance and every function it links.

Everything is drawn from one seeded `random.Random`: the same sizes and seed give the same library
and queries, byte for byte."""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from agentmem.adapters.local.fts import STOP_WORDS
from agentmem.procedural.model import FunctionSpec, GuidanceSpec, SkillStatus


@dataclass(frozen=True)
class Concept:
    code: str
    canonical: str
    paraphrases: tuple[str, ...]


@dataclass(frozen=True)
class DomainObject:
    concept: Concept
    type_name: str
    categories: str  # letters of the verb categories that apply: R, A, W, O, P


@dataclass(frozen=True)
class Domain:
    tag: str
    system: str
    paraphrases: tuple[str, ...]  # how a person names the domain: "the books", "accounting"
    objects: tuple[DomainObject, ...]
    qualifiers: tuple[Concept, ...]


# One record a line, fields split by " | "; a line starting with "    |" continues the record above.
# verb CATEGORY | code | canonical | paraphrases...      ({o} is where the object goes)
# generic CODE | canonical | paraphrases...             (a qualifier any domain may draw)
# domain TAG | System | how people name the domain...
# object TypeName | verb categories | canonical | paraphrases...
# qualifier CODE | canonical | paraphrases...           (of the domain above)
# Verb categories: R records, A access and secrets, W workflow items, O running things, P reports.
# Within a category, verbs are in the order a runbook would call them.
VOCABULARY = """
# verbs: category | code | canonical | paraphrases...  ({o} is the object)
verb R | import | import {o} | load in {o} | bring {o} into the system | ingest {o}
verb R | validate | validate {o} | sanity-check {o} | look for errors in {o}
    | verify {o} are correct
verb R | deduplicate | deduplicate {o} | get rid of repeated {o} | merge {o} that appear twice
    | collapse double {o}
verb R | enrich | enrich {o} | add missing details to {o} | augment {o} with extra attributes
verb R | reconcile | reconcile {o} | match up {o} | tie out {o} | square up {o}
verb R | backfill | backfill {o} | fill in gaps in {o} retroactively | repopulate missing {o}
verb R | flag_anomalies | flag anomalies in {o} | spot outliers among {o} | catch suspicious {o}
    | detect unusual {o}
verb R | reprocess | reprocess failed {o} | rerun {o} that errored
    | retry {o} that did not go through
verb R | summarize | summarize {o} | write up an overview of {o} | write a digest of {o}
verb R | export | export {o} | dump out {o} | pull a copy of {o} | extract {o} to a file
verb R | archive | archive {o} | move {o} to cold storage | shelve old {o} | put {o} away long-term
verb R | purge | purge {o} | permanently delete {o} | wipe {o} | erase {o} for good
verb A | provision | provision {o} | set up new {o} | issue {o} | hand out fresh {o}
verb A | rotate | rotate {o} | cycle {o} | swap out {o} for fresh ones | replace {o} with new ones
verb A | renew | renew {o} | extend {o} before they lapse | refresh {o} ahead of their end date
verb A | audit | audit {o} | review who holds {o} | inspect {o} for compliance
    | go over {o} line by line
verb A | expire | expire stale {o} | deactivate unused {o} | retire old {o} | disable dormant {o}
verb A | revoke | revoke {o} | withdraw {o} | cancel {o} immediately | take away {o}
verb W | prioritize | prioritize incoming {o} | triage new {o} | rank fresh {o} by urgency
    | sort arriving {o} by importance
verb W | assign | assign {o} to an owner | route {o} to the right person
    | hand {o} to someone on the team | allocate {o} to a colleague
verb W | approve | approve pending {o} | sign off on waiting {o} | green-light outstanding {o}
    | okay queued {o}
verb W | escalate | escalate overdue {o} | bump late {o} up the chain
    | raise past-due {o} with management | push stalled {o} to the next level
verb W | notify | notify stakeholders about {o} | send an alert about {o}
    | tell the people involved about {o} | ping the interested parties regarding {o}
verb W | reopen | reopen rejected {o} | revive declined {o} | bring back turned-down {o}
    | give denied {o} another look
verb W | close_out | close out resolved {o} | wrap up finished {o} | mark completed {o} as done
    | shut finished {o}
verb O | health_check | health-check {o} | verify that {o} are up | probe {o} for problems
    | make sure {o} respond
verb O | snapshot | snapshot {o} | take a point-in-time copy of {o} | back up {o}
    | capture the state of {o}
verb O | scale_up | scale up {o} | add capacity to {o} | grow {o} | increase the size of {o}
verb O | restart | restart {o} | bounce {o} | reboot {o} | turn {o} off and on again
verb O | pause | pause {o} | suspend {o} | put {o} on hold | temporarily stop {o}
verb O | drain | drain traffic from {o} | take {o} out of rotation | stop sending requests to {o}
    | move load away from {o}
verb O | migrate | migrate {o} to the new platform | move {o} over to the replacement system
    | port {o} across to the new stack | transfer {o} onto the successor environment
verb P | forecast | forecast {o} | project {o} forward | predict upcoming {o} | estimate future {o}
verb P | generate | generate {o} | produce {o} | put together {o} | build {o}
verb P | compare | compare {o} against the prior period | diff {o} with last period
    | see how {o} changed since last time | contrast {o} with the previous cycle
verb P | convert | convert {o} to PDF | turn {o} into printable documents | render {o} as PDFs
verb P | publish | publish {o} | post {o} for the team | release {o}
    | make {o} available to everyone
verb P | distribute | email {o} to recipients | send {o} out to the mailing list | circulate {o}
    | share {o} with subscribers

# qualifiers any domain may draw: code | canonical | paraphrases...
generic nightly | on a nightly schedule | every night | as an overnight batch job
    | once each evening
generic dry_run | in dry-run mode | without actually changing anything
    | as a rehearsal that writes nothing | as a preview only
generic bulk | in bulk | many at once | in large batches | en masse
generic one_customer | for a single customer account | for just one client
    | scoped to an individual client
generic eu_region | for the EU region | in Europe | for our European data centres
generic post_incident | after an incident | following an outage
    | once a production problem is resolved
generic regulatory | for regulatory reporting | for the regulators | to satisfy compliance filings
generic expedited | with expedited handling | as fast as possible | on a rush basis | urgently

domain finance | Ledgerly | accounting | the books
object JournalEntry | R | ledger entries | journal lines | bookkeeping postings | GL postings
object IntercompanyBalance | RP | intercompany balances | amounts our subsidiaries owe each other
    | inter-entity balances | cross-entity receivables and payables
object ExpenseReport | RW | expense reports | staff spending claims | reimbursement claims
    | out-of-pocket claims
object AccrualSchedule | RP | accrual schedules | accrued cost plans | deferred spend timetables
object ClosePack | P | month-end close reports | period closing packs
    | end-of-period financial summaries
object AccountMapping | R | chart of accounts mappings | GL code crosswalks
    | account code translations
object AssetRegister | RP | fixed asset registers | depreciable equipment lists
    | capital item inventories
object VarianceReport | P | budget variance reports | actual-versus-plan comparisons
    | spend deviation summaries
qualifier fiscal_close | for a fiscal close | at period end | when we shut the books
qualifier eu_subsidiaries | for the EU subsidiaries | for our European entities
    | for the companies we own in Europe
qualifier external_audit | before the external audit | ahead of the auditors' visit
    | prior to the outside auditors arriving
qualifier multi_currency | in multiple currencies | across several currencies
    | denominated in foreign money

domain payroll | PayGrid | salary processing | pay runs
object Payslip | RP | payslips | salary statements | wage stubs | pay stubs
object PayrollRun | RWO | payroll runs | salary batches | wage cycles
object Timesheet | RW | timesheets | hours worked logs | time cards
object OvertimeClaim | RW | overtime claims | extra hours requests
    | requests for hours beyond the standard week
object BonusPayout | RW | bonus payouts | incentive payments | performance rewards
object Deduction | R | benefit deductions | pre-tax withholdings for perks
    | amounts held back for health plans
object Garnishment | RW | wage garnishments | court-ordered pay withholdings
    | salary attachment orders
object PensionContribution | RP | pension contributions | retirement plan payments | 401k deposits
qualifier contractors | for contractors | for freelancers | for non-employee workers
qualifier canada | for the Canadian entity | for our Canada team | for staff based in Canada
qualifier tax_year_end | at tax year end | when the annual filing period finishes
    | in the last pay cycle of the year
qualifier off_cycle | outside the regular pay cycle | off schedule
    | as a one-off between normal paydays

domain procurement | BuyDesk | purchasing | buying
object PurchaseOrder | RW | purchase orders | POs | buy orders | supplier orders
object Requisition | RW | purchase requisitions | internal buying requests | requests to buy
object Rfq | RWP | requests for quotation | price quote asks | bid invitations | RFQs
object CatalogItem | R | supplier catalog items | vendor product listings | items suppliers offer
object GoodsReceipt | R | goods receipts | delivery confirmations | records of received shipments
object SpendAnalysis | P | spend analyses | purchasing cost breakdowns
    | where-the-money-goes reports
object BlanketOrder | RW | blanket orders | standing agreements to buy over time
    | framework purchase agreements
qualifier capex | for capital expenditure | for big equipment purchases | for long-lived investments
qualifier over_threshold | above the approval threshold | over the sign-off limit
    | bigger than what a manager can okay alone
qualifier preferred | with preferred suppliers | with our favoured vendors | from approved partners
qualifier quarter_end | before quarter end | ahead of the end of the three-month period
    | before the quarter finishes

domain vendors | VendorHub | supplier management | third-party management
object VendorCredential | A | vendor API credentials | supplier API keys | third-party access tokens
    | partner integration secrets
object VendorProfile | RW | vendor profiles | supplier records | third-party master data
object OnboardingForm | RW | vendor onboarding forms | new supplier intake paperwork
    | supplier registration questionnaires
object RiskAssessment | RWP | vendor risk assessments | supplier due-diligence reviews
    | third-party risk questionnaires
object BankDetails | RA | vendor bank details | supplier payment account info
    | third-party remittance accounts
object Scorecard | P | vendor performance scorecards | supplier ratings | third-party KPI reviews
object InsuranceCertificate | RW | supplier insurance certificates | proof of cover from vendors
    | partners' liability policies
object PortalAccount | A | vendor portal accounts | supplier logins to our portal
    | external partner user accounts
qualifier critical | for critical suppliers | for the vendors we can't operate without
    | for tier-one partners
qualifier annual_review | during the annual review | at the yearly check-in
    | once a year at re-evaluation time
qualifier offboarding | when offboarding a supplier | when we stop working with a vendor
    | at the end of a third-party relationship
qualifier overseas | for overseas suppliers | for vendors abroad | for foreign partners

domain tax | TaxPoint | the tax team | tax compliance
object VatReturn | RWP | VAT returns | value-added tax filings | sales tax declarations
object WithholdingCertificate | RW | withholding tax certificates | tax-withheld statements
    | deducted-at-source forms
object TaxProvision | RP | tax provisions | estimated tax liabilities | reserves for income tax owed
object TransferPricingFile | RP | transfer pricing files | intra-group pricing documentation
    | arm's-length pricing studies
object Form1099 | RP | 1099 forms | US contractor income forms | IRS information returns
object ExemptionCertificate | RW | tax exemption certificates | tax-free purchase documents
    | resale exemption papers
object NexusDetermination | RP | nexus determinations | where-we-owe-tax analyses
    | state tax presence assessments
qualifier quarterly | for the quarterly filing | for the every-three-months submission
    | for the Q return
qualifier multi_state | across US states | for every American state we sell in | state by state
qualifier amended | for an amended return | when correcting a filing already submitted
    | for a resubmission
qualifier e_invoicing | under e-invoicing mandates | where electronic invoices are legally required
    | for digital invoice rules

domain treasury | CashView | cash management | treasury
object CashPosition | RP | cash positions | bank balances across accounts | how much money we hold
object FxHedge | RWP | FX hedges | currency risk contracts | foreign exchange forwards
object PaymentBatch | RWO | outgoing payment batches | bulk wire transfers
    | groups of supplier payments
object BankStatement | R | bank statements | account activity files from the bank | MT940 files
object Signatory | A | bank signatory lists | people authorised to sign for accounts
    | account mandate holders
object LiquidityForecast | P | liquidity forecasts | cash runway projections
    | funding needs outlooks
object CardLimit | AW | corporate card limits | company credit card spending caps
    | employee card ceilings
qualifier daily_sweep | for the daily cash sweep | for the once-a-day pooling of funds
    | when moving money into the main account each day
qualifier covenant | for the lender covenant test | for the bank's loan conditions check
    | to prove we meet debt terms
qualifier dual_approval | above the dual-approval limit | over the two-signature amount
    | large enough to need two approvers
qualifier apac | for the APAC treasury centre | for the Asia-Pacific cash hub
    | for our Singapore money office

domain billing | Invoicr | customer billing | invoicing
object Invoice | RWP | customer invoices | bills we send clients | client bills
object Subscription | RWO | subscriptions | recurring plans | customer memberships
object CreditNote | RW | credit notes | refund documents
    | billing corrections in the customer's favour
object DunningNotice | RW | dunning notices | overdue payment reminders | late-payment chasers
object UsageRecord | R | metered usage records | consumption meter readings | pay-per-use counts
object PaymentMethod | RA | stored payment methods | saved cards on file
    | customer billing instruments
object PriceBook | RP | price books | rate cards | list price tables
object AgingReport | P | receivables aging reports | overdue balance breakdowns
    | who-owes-us-how-long summaries
qualifier enterprise | for enterprise accounts | for our largest customers
    | for big corporate clients
qualifier failed_charge | after a failed charge | when a card payment bounces
    | once a payment attempt is declined
qualifier proration | with mid-cycle proration | when a plan changes partway through the period
    | with partial-period adjustments
qualifier pricing_migration | during the pricing migration
    | while we move customers to the new price plan | as part of the price change rollout

domain people | PeopleOS | HR | people operations
object EmployeeRecord | RA | employee records | staff files | personnel data | worker profiles
object LeaveRequest | RW | leave requests | time-off applications | vacation asks | holiday bookings
object PerformanceReview | RWP | performance reviews | appraisals | annual evaluations
object OnboardingChecklist | RW | onboarding checklists | new starter task lists
    | first-week to-dos for hires
object OrgChart | RP | org charts | reporting line diagrams | team hierarchy maps
object TrainingAssignment | RW | compliance training assignments | mandatory course enrolments
    | required learning modules
object BenefitsEnrolment | RW | benefits enrolments | health plan sign-ups | perk elections
qualifier new_hires | for new hires | for people who just joined | for recent joiners
qualifier leavers | for leavers | for departing staff | for people exiting the company
qualifier works_council | for the German works council | for the employee representatives in Germany
    | for the German staff committee
qualifier open_enrolment | during open enrolment | in the yearly benefits selection window
    | while people can change their plans

domain recruiting | TalentTrack | hiring | talent acquisition
object Candidate | RW | candidate profiles | applicant records | job seeker files
object JobPosting | RWP | job postings | vacancy ads | open role listings
object InterviewSlot | RW | interview schedules | meeting times with applicants
    | interview calendars
object OfferLetter | RWP | offer letters | employment proposals | job offers
object Referral | RW | employee referrals | recommendations from staff | referred applicants
object BackgroundCheck | RW | background checks | pre-employment screenings
    | criminal record vetting
object InterviewScorecard | RP | interview scorecards | interviewer feedback forms
    | hiring panel ratings
qualifier engineering | for engineering roles | for software positions | for developer jobs
qualifier graduates | for the graduate program | for university leavers | for the entry-level intake
qualifier executive | for executive searches | for C-level hiring | for senior leadership vacancies
qualifier remote | for remote candidates | for people applying from home | for distributed hires

domain security | Keystone | access management | security
object ServiceAccountKey | A | service account keys | machine credentials | robot user secrets
    | non-human login keys
object AccessGrant | AW | user access grants | staff permissions | who-can-see-what entitlements
object MfaDevice | A | MFA devices | second-factor tokens | two-step login authenticators
object TlsCertificate | AO | TLS certificates | HTTPS certs | SSL certs for our domains
object SshKey | A | SSH keys | server login keypairs | shell access keys
object AccessReview | WP | quarterly access reviews | permission recertifications
    | entitlement attestations
object SecurityAlert | RW | security alerts | threat detections | intrusion warnings
object VaultSecret | A | vault secrets | stored passwords in the secrets manager
    | sensitive config values
qualifier privileged | for privileged accounts | for admin-level users | for superuser logins
qualifier compromise | after a suspected compromise | when we think someone broke in
    | following a possible breach
qualifier departing | for departing employees | for people leaving the company | when staff quit
qualifier soc2 | for the SOC 2 audit | for our annual security attestation
    | for the trust services report

domain platform | Atlas | the platform | infrastructure
object Cluster | O | Kubernetes clusters | k8s environments | container orchestration fleets
object DatabaseReplica | O | database replicas | read copies of the DB | standby database nodes
object DnsRecord | RA | DNS records | domain name entries | hostname mappings
object LoadBalancer | O | load balancers | traffic distributors | front-door proxies
object NodePool | O | node pools | groups of worker machines | compute instance groups
object TerraformState | R | Terraform state files | infrastructure-as-code state | IaC snapshots
object CloudCostReport | P | cloud cost reports | hosting bill breakdowns | AWS spend summaries
object VmImage | RO | base VM images | golden machine templates | server boot images
qualifier production | in production | on the live environment | where customers are served
qualifier failover | during a regional failover | when we switch to the backup region
    | while moving traffic to the secondary site
qualifier maintenance_window | in the maintenance window | during the scheduled downtime slot
    | in the agreed quiet period
qualifier staging | in staging | on the pre-release environment | in the test copy of prod

domain data | Tidepool | analytics | the data platform
object EtlPipeline | O | ETL pipelines | data loading jobs | extract-transform-load flows
object WarehouseTable | RO | warehouse tables | analytics datasets | data lake tables
object Dashboard | P | BI dashboards | business intelligence boards | KPI screens
object TableSchema | R | table schemas | column definitions | data layouts
object PiiColumn | RA | PII columns | personal data fields | sensitive customer attributes
object ClickEvent | R | clickstream events | website interaction logs | user tracking hits
object QualityCheck | OP | data quality checks | dataset validity tests
    | freshness and null-rate rules
object QueryCostReport | P | query cost reports | warehouse compute spend summaries
    | what-our-SQL-costs breakdowns
qualifier gdpr_erasure | for a GDPR deletion request | when a person asks us to forget them
    | for a right-to-erasure ask
qualifier late_data | when upstream data arrives late | if source feeds are delayed
    | when inputs show up after the cutoff
qualifier seven_years | for the last seven years | going back to the start of the retention period
    | over the full history we keep
qualifier marketing_team | for the marketing team | for the growth folks | for our campaign analysts

domain support | HelpLine | customer support | the help desk
object SupportTicket | RW | support tickets | customer help requests | helpdesk cases
object CannedResponse | RP | canned responses | saved reply templates | pre-written answers
object CsatSurvey | RP | CSAT surveys | customer satisfaction questionnaires | happiness ratings
object ChatTranscript | R | chat transcripts | live conversation logs | messenger histories
object SlaTimer | RO | SLA timers | response deadline clocks | service level countdowns
object KbArticle | RP | knowledge base articles | help centre pages | self-service docs
object RefundRequest | RW | refund requests | money-back asks | reimbursement demands from customers
qualifier vip | for VIP customers | for our most important clients | for high-value accounts
qualifier outage | during a service outage | while the product is down | when the app is unavailable
qualifier weekend | over the weekend shift | on Saturday and Sunday coverage | outside weekday hours
qualifier spanish | for Spanish-speaking customers | for clients who write in Spanish
    | for the LATAM queue

domain sales | Dealbook | sales | the revenue team
object Opportunity | RW | sales opportunities | deals in the pipeline | potential deals
object Lead | RW | inbound leads | new prospects | interested contacts
object Quote | RWP | sales quotes | price proposals | estimates for prospects
object Territory | RA | sales territories | account regions | rep patch assignments
object Commission | RP | sales commissions | rep payouts for closed deals | quota-based earnings
object PipelineForecast | P | pipeline forecasts | expected bookings outlook
    | revenue projections from open deals
object Contact | R | CRM contacts | customer address book entries | people records in the CRM
qualifier quarter_close | at quarter close | in the final days of the quarter | as the quarter wraps
qualifier strategic | for strategic accounts | for key named customers | for top-tier logos
qualifier channel | from channel partners | from resellers | sourced through our distributors
qualifier emea | in EMEA | for Europe, Middle East and Africa | in the eastern hemisphere region

domain marketing | Beacon | marketing | growth
object EmailCampaign | WOP | email campaigns | newsletter blasts | mailing sends
object AudienceSegment | R | audience segments | targeting groups | customer cohorts for ads
object ConsentRecord | RA | marketing consent records | opt-in permissions
    | subscription preferences
object AdSpendReport | P | ad spend reports | paid media cost summaries
    | advertising budget breakdowns
object LandingPage | RP | landing pages | campaign web pages | signup microsites
object UtmLink | R | UTM tracking links | tagged campaign URLs | attribution links
object WebinarRegistration | RW | webinar registrations | online event signups
    | virtual seminar attendees
qualifier launch | for a product launch | when a new feature ships | for a release announcement
qualifier unsubscribed | for unsubscribed contacts | for people who opted out
    | for those who asked to stop hearing from us
qualifier ab_test | for an A/B test | for a split experiment | when trying two variants
qualifier holiday | for the holiday season | for the end-of-year shopping period | for Black Friday

domain legal | ClauseBase | legal | the lawyers
object Contract | RWP | customer contracts | client agreements | signed deal paperwork
object Nda | RW | NDAs | confidentiality agreements | non-disclosure papers
object LegalHold | RWA | legal holds | litigation preservation notices | evidence retention orders
object Clause | R | contract clauses | agreement terms | contract provisions
object RenewalDate | RW | contract renewal dates | agreement expiry deadlines | auto-renew windows
object TrademarkFiling | RW | trademark filings | brand registrations | IP protection applications
object Dpa | RW | data processing agreements | privacy addenda | DPAs with processors
qualifier litigation | for pending litigation | for an ongoing lawsuit | for a case in court
qualifier acquisition | for an acquisition due diligence | while we evaluate buying a company
    | for the merger data room
qualifier english_law | under English law | governed by the law of England | in UK jurisdiction
qualifier expiring | expiring within 90 days | that run out in the next three months
    | nearing their end date

domain compliance | RiskRadar | compliance | risk management
object Policy | RWP | internal policies | company rules documents | codes of conduct
object ControlTest | RWP | control tests | checks that safeguards work
    | control effectiveness evidence
object ComplianceIncident | RW | compliance incidents | rule breaches | policy violations
object RiskEntry | RP | risk register entries | logged business risks | risk inventory items
object KycFile | RW | KYC files | customer identity checks | know-your-customer dossiers
object Attestation | RW | policy attestations | employee acknowledgements of the rules
    | signed read-and-understood forms
object AuditFinding | RWP | audit findings | issues auditors raised | remediation items from audits
qualifier sox | for SOX compliance | for Sarbanes-Oxley | for US public-company financial controls
qualifier high_risk | for high-risk customers | for clients flagged as dangerous
    | for elevated-risk accounts
qualifier iso27001 | for the ISO 27001 recertification | for the infosec standard renewal
    | for our information security certification
qualifier risk_committee | for the risk committee | for the directors overseeing risk
    | for the board's risk meeting

domain logistics | ShipStream | shipping | logistics
object Shipment | RWO | outbound shipments | parcels going out | deliveries to customers
object ShippingLabel | RP | shipping labels | parcel address stickers | carrier labels
object CarrierRate | RP | carrier rates | courier price tables | freight tariffs
object CustomsDeclaration | RW | customs declarations | border paperwork | import-export forms
object ReturnAuthorisation | RW | return authorisations | RMAs
    | permission for customers to send goods back
object DeliveryRoute | RO | delivery routes | driver itineraries | van runs
object DeliveryProof | R | proof of delivery records | signed receipts from recipients | POD scans
qualifier international | for international orders | for cross-border parcels | for overseas buyers
qualifier hazmat | for hazardous materials | for dangerous goods
    | for items like batteries and chemicals
qualifier same_day | for same-day delivery | for deliveries within hours | for express today orders
qualifier peak | during peak season | in the busiest shipping weeks | when volumes spike

domain inventory | StockRoom | the warehouse | inventory
object StockLevel | RP | stock levels | on-hand quantities | how many units we have
object Sku | R | SKU master data | product catalogue records | item definitions
object CycleCount | RW | cycle counts | rolling physical counts | shelf audits
object ReorderPoint | RP | reorder points | replenishment triggers | minimum stock thresholds
object BinLocation | R | bin locations | shelf slots | storage positions in the warehouse
object LotNumber | R | lot numbers | batch codes | production batch identifiers
object WriteOff | RW | inventory write-offs | stock losses | damaged goods adjustments
qualifier perishable | for perishable goods | for items that spoil
    | for products with a short shelf life
qualifier east_dc | at the east coast distribution centre | at the New Jersey warehouse
    | in our Atlantic-side depot
qualifier product_recall | during a product recall | when we pull a faulty item from the market
    | for a safety withdrawal
qualifier slow_moving | for slow-moving items | for products that rarely sell | for dead stock

domain manufacturing | LineQ | the factory floor | quality
object InspectionResult | RP | inspection results | quality check outcomes | QC measurements
object WorkOrder | RWO | work orders | production jobs | manufacturing tasks
object NonConformanceReport | RWP | non-conformance reports | defect write-ups | NCRs
object CalibrationRecord | RW | calibration records | instrument accuracy logs
    | gauge adjustment history
object Bom | R | bills of materials | component lists | parts structures
object MachineTelemetry | RO | machine telemetry | sensor readings from the line | equipment signals
object SpcChart | P | SPC charts | statistical process control plots | control charts
qualifier line_3 | for assembly line 3 | for the third production line | for line number three
qualifier supplier_parts | for supplier-provided parts | for components bought in
    | for outsourced parts
qualifier fda | for the FDA submission | for the US medical device regulator
    | for the device approval filing
qualifier night_shift | on the night shift | for the overnight crew | during graveyard hours

domain release | Shipyard | CI/CD | release engineering
object CiBuild | O | CI builds | continuous integration jobs | pipeline runs
object Artifact | R | build artifacts | compiled packages | release binaries
object FeatureFlag | RAO | feature flags | feature toggles | launch switches
object ReleaseNotes | P | release notes | changelogs | what's-new summaries
object Deployment | WO | deployments | rollouts | shipped versions
object DependencyUpdate | RW | dependency updates | library upgrade PRs | package bump requests
object FlakyTest | RO | flaky tests | unreliable test cases | intermittently failing checks
object CiRunner | O | CI runners | build agents | pipeline worker machines
qualifier hotfix | for a hotfix | for an emergency patch | for an urgent bug fix release
qualifier mobile | for the mobile apps | for iOS and Android | for the phone apps
qualifier canary | in a canary rollout | for the first small slice of users | in a gradual exposure
qualifier monorepo | in the monorepo | in the single big repository | for the shared code base

domain observability | Watchtower | monitoring | on-call
object AlertRule | RO | alert rules | paging conditions | monitoring triggers
object ServiceDashboard | P | service dashboards | health graphs | metrics boards
object LogStream | RO | application logs | service output records | runtime log lines
object OnCallSchedule | RW | on-call schedules | pager rotations | duty rosters
object Postmortem | RWP | incident postmortems | outage retrospectives | after-action reviews
object SloBudget | P | SLO budgets | error budgets | reliability targets
object Trace | R | distributed traces | request span data | call path recordings
qualifier sev1 | for sev-1 incidents | for the most severe outages | for top-priority emergencies
qualifier noisy | for noisy pages | for alerts that fire too often | for false alarms
qualifier new_service | for a newly launched service | for a system that just went live
    | for a brand-new microservice
qualifier past_retention | past the retention period | older than we are allowed to keep
    | beyond the storage time limit

domain ml | ModelForge | machine learning | the ML platform
object ModelVersion | RO | model versions | trained model releases | ML artefacts in the registry
object TrainingJob | O | training jobs | model fitting runs | learning workloads
object FeatureEntry | R | feature store entries | ML input features | precomputed model inputs
object LabelledDataset | RW | labelled datasets | annotated training data | human-tagged examples
object InferenceEndpoint | O | inference endpoints | prediction servers | model serving APIs
object DriftReport | P | drift reports | model decay analyses | distribution shift summaries
object GpuQuota | AW | GPU quotas | accelerator allowances | graphics card capacity limits
qualifier fraud_model | for the fraud model | for the scam detection classifier
    | for payment risk scoring
qualifier weekly_retraining | before weekly retraining | ahead of the regular model refresh
    | prior to the scheduled relearn
qualifier shadow | in shadow mode | alongside the live model without serving results
    | as a silent comparison
qualifier recommender | for the recommendation engine | for product suggestions
    | for the you-may-also-like system

domain facilities | Campus | facilities | the office
object AccessBadge | A | building access badges | door key cards | entry passes
object DeskBooking | RW | desk bookings | hot-desk reservations | workspace reservations
object MaintenanceRequest | RW | maintenance requests | repair tickets
    | fix-it requests for the building
object VisitorLog | R | visitor logs | guest sign-in records | front desk arrival lists
object RoomCalendar | RW | meeting room calendars | conference room schedules
    | boardroom reservations
object EnergyReading | RP | energy usage readings | electricity meter data
    | power consumption figures
object ParkingPermit | AW | parking permits | car park passes | garage spots
qualifier london | at the London office | in our UK headquarters | at the King's Cross building
qualifier after_hours | after hours | outside the working day | late in the evening
qualifier office_move | for an office move | when we change buildings | during the relocation
qualifier onsite_contractors | for on-site contractors | for external workers in the building
    | for vendors visiting to work

domain success | Orbit | customer success | account management
object HealthScore | RP | account health scores | customer wellness ratings | churn risk indicators
object RenewalOpportunity | RW | renewal opportunities | contracts up for extension
    | upcoming re-signs
object Qbr | WP | quarterly business reviews | QBR decks | customer check-in presentations
object SuccessPlan | RW | success plans | customer goal roadmaps | adoption plans
object NpsResponse | RP | NPS responses | net promoter answers | would-you-recommend scores
object AdoptionReport | P | product adoption reports | feature uptake summaries
    | how-much-they-use-it reports
object CustomerEscalation | RW | customer escalations
    | unhappy client complaints raised to leadership | executive-level complaints
qualifier at_risk | for at-risk accounts | for customers likely to leave
    | for clients showing churn signals
qualifier first_90_days | in the first 90 days | during a customer's first three months
    | right after they sign
qualifier upsell | for upsell candidates | for accounts that could buy more
    | for growth opportunities
qualifier smb | for small-business customers | for our SMB segment | for small companies
"""


def _records(text: str) -> list[list[str]]:
    records: list[list[str]] = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split(" | ")]
        if line.startswith("    |"):  # "    | a | b" splits as ["", "a", "b"]
            records[-1] += fields[1:]
        else:
            records.append(fields)
    return records


def _parse(text: str) -> tuple[dict[str, tuple[Concept, ...]], tuple[Concept, ...], tuple[Domain, ...]]:
    verbs: dict[str, list[Concept]] = defaultdict(list)
    generic: list[Concept] = []
    domains: list[Domain] = []
    objects: list[DomainObject] = []
    qualifiers: list[Concept] = []

    def close_domain() -> None:
        if domains:
            last = domains[-1]
            domains[-1] = Domain(last.tag, last.system, last.paraphrases, tuple(objects), tuple(qualifiers))
            objects.clear()
            qualifiers.clear()

    for head, *rest in _records(text):
        kind, _, key = head.partition(" ")
        if kind == "verb":
            verbs[key].append(Concept(rest[0], rest[1], tuple(rest[2:])))
        elif kind == "generic":
            generic.append(Concept(key, rest[0], tuple(rest[1:])))
        elif kind == "domain":
            close_domain()
            domains.append(Domain(key, rest[0], tuple(rest[1:]), (), ()))
        elif kind == "object":
            code = re.sub(r"[^a-z0-9]+", "_", rest[1].lower()).strip("_")
            objects.append(DomainObject(Concept(code, rest[1], tuple(rest[2:])), key, rest[0]))
        elif kind == "qualifier":
            qualifiers.append(Concept(key, rest[0], tuple(rest[1:])))
        else:
            raise ValueError(f"unknown vocabulary record {head!r}")
    close_domain()
    return {k: tuple(v) for k, v in verbs.items()}, tuple(generic), tuple(domains)


VERBS, GENERIC_QUALIFIERS, DOMAINS = _parse(VOCABULARY)
VERB_ORDER = {v.code: i for i, v in enumerate(v for verbs in VERBS.values() for v in verbs)}


# -- docstrings, signatures, implementations ------------------------------------------------------

SINKS = ("the data lake", "the shared drive", "the reporting database", "S3", "the audit bucket")
DETAILS = (
    "Reads them from {system} and writes a summary to {sink}.",
    "Safe to rerun: items already handled are skipped.",
    "Returns a {ret} describing every change made.",
    "Requires the `{tag}-ops` role in {system}.",
    "Every change is recorded in the audit trail.",
    "Pass `dry_run=True` to see what would happen without writing anything.",
    "Calls the {system} API in pages of 100 items.",
    "Raises {type}Error when {system} rejects the request.",
    "Posts a message to #{tag}-ops when it finishes.",
    "Owned by the {tag} platform team; see the runbook before changing it.",
    "Runs under the {system} service account, never a personal one.",
    "Times out after ten minutes and leaves partial work in place for the next run.",
)
KEYWORD_ARGS = {
    "R": "since: date | None = None, dry_run: bool = False",
    "A": "owner: str, ttl_days: int = 90",
    "W": "actor: str, reason: str = ''",
    "O": "region: str, timeout_s: int = 600",
    "P": "period: str, fmt: str = 'pdf'",
}
GUIDANCE_NOTES = (
    "Get sign-off from the {tag} lead before running anything against production data.",
    "Post a short summary in #{tag}-ops when you are done.",
    "If a step fails, stop there and page the {tag} on-call; do not skip ahead.",
    "Keep the run log: auditors ask for it for seven years.",
    "Never run two of these steps at once on the same data.",
    "Check the {system} status page first; a degraded API makes half of these steps time out.",
    "Steps are idempotent, so a rerun after a failure is safe.",
    "Write down anything unusual in the {system} change log.",
)

# -- queries ---------------------------------------------------------------------------------------

FUNCTION_QUERY_TEMPLATES = (
    "{act} {qual}",
    "I need to {act} {qual}",
    "how do I {act} {qual}?",
    "can you {act} {qual}",
    "{Qual}, {act}",
    "help me {act} {qual}",
    "task: {act} {qual}",
    "we have to {act} {qual} - what should I use?",
    "looking for a way to {act} {qual}",
    "{Qual} I want to {act}",
)
GUIDANCE_QUERY_TEMPLATES = {
    "object_qualifier": (
        "what's the process for {obj} {qual}?",
        "walk me through handling {obj} {qual}",
        "how do we usually deal with {obj} {qual}",
        "{Qual}, what are the steps for {obj}?",
    ),
    "object": (
        "everything I should know about {obj}",
        "tips for dealing with {obj} in {domain}",
        "how does {domain} handle {obj}?",
        "what's the usual way to work with {obj}",
    ),
    "qualifier": (
        "what does {domain} need to do {qual}?",
        "{Qual}, what must {domain} take care of?",
        "the things {domain} has to get done {qual}",
        "what's on the list for {domain} {qual}",
    ),
}
SYSTEM_MENTION = ("in {system}", "(we use {system})", "on {system}")
SYSTEM_MENTION_RATE = 0.3


@dataclass(frozen=True)
class GeneratedFunction:
    spec: FunctionSpec
    domain: Domain
    obj: DomainObject
    verb: Concept
    qualifier: Concept | None


@dataclass(frozen=True)
class GeneratedGuidance:
    spec: GuidanceSpec
    domain: Domain
    theme: str  # object_qualifier, object or qualifier
    obj: DomainObject | None
    qualifier: Concept | None


@dataclass(frozen=True)
class Query:
    text: str
    target: tuple[str, str]  # (kind, id) the query was written for
    relevant: frozenset[tuple[str, str]]
    target_text: str  # the target's indexed text: what word overlap is measured against
    target_docstring: str  # docstring (function) or content (guidance)
    # The same query with the object (a guidance without one: the domain) named in the library's
    # own words, verb and qualifier still paraphrased: information only, never used for a bar.
    text_named: str


@dataclass
class Library:
    functions: list[GeneratedFunction] = field(default_factory=list)
    guidance: list[GeneratedGuidance] = field(default_factory=list)
    queries: list[Query] = field(default_factory=list)


def _snake(type_name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type_name).lower()


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _verb_phrase(verb: str, obj: str) -> str:
    return verb.replace("{o}", obj)


def _function_spec(
    domain: Domain,
    obj: DomainObject,
    category: str,
    verb: Concept,
    qualifier: Concept | None,
    deps: Sequence[GeneratedFunction],
    rng: random.Random,
) -> FunctionSpec:
    name = "_".join(p for p in (verb.code, obj.concept.code, qualifier.code if qualifier else "") if p)
    ret = "".join(part.capitalize() for part in verb.code.split("_")) + "Result"
    param = _snake(obj.type_name) + "s"
    signature = f"({param}: list[{obj.type_name}], *, {KEYWORD_ARGS[category]}) -> {ret}"
    what = _verb_phrase(verb.canonical, obj.concept.canonical)
    if qualifier is not None:
        what += " " + qualifier.canonical
    values = {
        "system": domain.system,
        "sink": rng.choice(SINKS),
        "ret": ret,
        "tag": domain.tag,
        "type": obj.type_name,
    }
    details = [d.format(**values) for d in rng.sample(DETAILS, rng.choice((1, 2, 2, 3)))]
    docstring = " ".join([_cap(what) + ".", *details])
    calls = "".join(f"    {d.spec.name}(client, {param})\n" for d in deps)
    implementation = (
        f"def {name}{signature}:\n"
        f'    """{docstring}"""\n'
        f"    client = {domain.system.lower()}.client(timeout=600)\n"
        f"{calls}"
        f"    response = client.call({verb.code!r}, {param})\n"
        f"    return {ret}.from_response(response)\n"
    )
    tags = [domain.tag, domain.system.lower(), {"R": "records", "A": "access", "W": "workflow",
            "O": "operations", "P": "reporting"}[category]]  # fmt: skip
    return FunctionSpec(
        function_id=f"{domain.tag}.{name}",
        name=name,
        signature=signature,
        docstring=docstring,
        implementation=implementation,
        depends_on=[d.spec.function_id for d in deps],
        tags=tags,
        status=SkillStatus.APPROVED,
        author=f"{domain.tag}-platform@example.com",
    )


Combination = tuple[Domain, DomainObject, str, Concept, Concept | None]


def _combinations(rng: random.Random) -> list[Combination]:
    """Every (domain, object, verb category, verb, qualifier) the vocabulary allows, shuffled. A
    domain's qualifiers are its four own and two of the generic ones, drawn per domain."""
    out: list[Combination] = []
    for domain in DOMAINS:
        qualifiers = [None, *domain.qualifiers, *rng.sample(GENERIC_QUALIFIERS, 2)]
        for obj in domain.objects:
            for category in obj.categories:
                for verb in VERBS[category]:
                    for qualifier in qualifiers:
                        out.append((domain, obj, category, verb, qualifier))
    rng.shuffle(out)
    return out


def generate(functions: int, guidance: int, queries: int, seed: int) -> Library:
    """`functions` functions, `guidance` guidance and `queries` task queries (about four in five
    written for a function, the rest for a guidance), all approved."""
    rng = random.Random(seed)
    library = Library()
    # Draw combinations so a third come without a qualifier: not every procedure has a context.
    pool = _combinations(rng)
    bare = [c for c in pool if c[4] is None]
    qualified = [c for c in pool if c[4] is not None]
    n_bare = min(len(bare), functions // 3)
    chosen = bare[:n_bare] + qualified[: functions - n_bare]
    if len(chosen) < functions:
        raise ValueError(f"the vocabulary allows only {len(pool)} functions")
    rng.shuffle(chosen)

    by_domain: dict[str, list[GeneratedFunction]] = defaultdict(list)
    by_object: dict[tuple[str, str], list[GeneratedFunction]] = defaultdict(list)
    for domain, obj, category, verb, qualifier in chosen:
        # Dependencies only on functions written earlier: acyclic by construction. Mostly the same
        # object (a reconcile calls the import and the validate of the same records), else the domain.
        deps: list[GeneratedFunction] = []
        wanted = rng.choices((0, 1, 2, 3), weights=(40, 35, 20, 5))[0]
        same_object = by_object[(domain.tag, obj.concept.code)]
        same_domain = by_domain[domain.tag]
        for _ in range(wanted):
            source = same_object if same_object and rng.random() < 0.7 else same_domain
            if source:
                dep = rng.choice(source)
                if dep not in deps:
                    deps.append(dep)
        spec = _function_spec(domain, obj, category, verb, qualifier, deps, rng)
        generated = GeneratedFunction(spec, domain, obj, verb, qualifier)
        library.functions.append(generated)
        by_domain[domain.tag].append(generated)
        same_object.append(generated)

    library.guidance = _guidance(library.functions, guidance, rng)
    library.queries = _queries(library, queries, rng)
    return library


def _guidance(functions: list[GeneratedFunction], count: int, rng: random.Random) -> list[GeneratedGuidance]:
    by_oq: dict[tuple[str, ...], list[GeneratedFunction]] = defaultdict(list)
    by_o: dict[tuple[str, ...], list[GeneratedFunction]] = defaultdict(list)
    by_q: dict[tuple[str, ...], list[GeneratedFunction]] = defaultdict(list)
    for f in functions:
        by_o[(f.domain.tag, f.obj.concept.code)].append(f)
        if f.qualifier is not None:
            by_oq[(f.domain.tag, f.obj.concept.code, f.qualifier.code)].append(f)
            by_q[(f.domain.tag, f.qualifier.code)].append(f)
    themes: list[tuple[str, tuple[str, ...]]] = []
    oq = [("object_qualifier", k) for k in sorted(by_oq)]
    o = [("object", k) for k in sorted(by_o) if len(by_o[k]) >= 2]
    q = [("qualifier", k) for k in sorted(by_q) if len(by_q[k]) >= 2]
    for pool in (oq, o, q):
        rng.shuffle(pool)
    # 70% runbooks for one object in one context, 20% guides to one object, 10% checklists for a context.
    wanted = {"qualifier": count // 10, "object": count // 5}
    wanted["object_qualifier"] = count - wanted["qualifier"] - wanted["object"]
    for name, pool in (("qualifier", q), ("object", o), ("object_qualifier", oq)):
        themes += pool[: wanted[name]]
    leftovers = [t for t in oq + o + q if t not in set(themes)]
    themes += leftovers[: count - len(themes)]
    if len(themes) < count:
        raise ValueError(f"only {len(themes)} guidance themes for {count} guidance")
    rng.shuffle(themes)

    domains = {d.tag: d for d in DOMAINS}
    out: list[GeneratedGuidance] = []
    for n, (theme, key) in enumerate(themes):
        domain = domains[key[0]]
        obj = next((ob for ob in domain.objects if theme != "qualifier" and ob.concept.code == key[1]), None)
        qual_code = key[-1] if theme != "object" else None
        qualifier = next((c for c in (*domain.qualifiers, *GENERIC_QUALIFIERS) if c.code == qual_code), None)
        size = rng.randint(1, 5) if theme == "object_qualifier" else rng.randint(2, 5)
        if theme == "object_qualifier":
            core = by_oq[key]
            rest = [f for f in by_o[key[:2]] if f not in core]
            linked = rng.sample(core, min(size, len(core)))
            linked += rng.sample(rest, min(size - len(linked), len(rest)))
        else:
            members = by_o[key] if theme == "object" else by_q[key]
            linked = rng.sample(members, min(size, len(members)))
        linked.sort(key=lambda f: (VERB_ORDER[f.verb.code], f.spec.function_id))
        out.append(_guidance_item(n, theme, domain, obj, qualifier, linked, rng))
    return out


def _guidance_item(
    n: int,
    theme: str,
    domain: Domain,
    obj: DomainObject | None,
    qualifier: Concept | None,
    linked: list[GeneratedFunction],
    rng: random.Random,
) -> GeneratedGuidance:
    values = {"system": domain.system, "tag": domain.tag}
    if theme == "object_qualifier":
        assert obj is not None and qualifier is not None
        subject = f"{obj.concept.canonical} {qualifier.canonical}"
        title = rng.choice(
            (
                f"Runbook: {subject}",
                f"How we handle {subject}",
                f"Playbook for {subject}",
                f"Standard procedure: {subject}",
            )
        )
        kind = "runbook"
        when = f"Use this runbook when you work on {subject} in {domain.system}."
    elif theme == "object":
        assert obj is not None
        subject = obj.concept.canonical
        title = rng.choice(
            (f"Working with {subject}", f"{_cap(subject)} handbook", f"Guide to {subject} in {domain.system}")
        )
        kind = "guide"
        when = f"Everything the {domain.tag} team does with {subject} in {domain.system}, in order."
    else:
        assert qualifier is not None
        subject = f"{domain.tag} {qualifier.canonical}"
        title = rng.choice((f"{_cap(domain.tag)} checklist {qualifier.canonical}", f"Checklist: {subject}"))
        kind = "checklist"
        when = f"What the {domain.tag} team must do {qualifier.canonical}."
    steps = []
    for i, f in enumerate(linked, start=1):
        first = f.spec.docstring.split(". ")[0].rstrip(".")
        steps.append(f"{i}. `{f.spec.name}`: {first[:1].lower() + first[1:]}.")
    notes = [f"- {note.format(**values)}" for note in rng.sample(GUIDANCE_NOTES, 2)]
    content = "\n".join([when, "", "## Steps", "", *steps, "", "## Notes", "", *notes])
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:90]
    spec = GuidanceSpec(
        guidance_id=f"{domain.tag}.{slug}.{n:04d}",
        title=title,
        content=content,
        function_ids=[f.spec.function_id for f in linked],
        tags=[domain.tag, kind],
        status=SkillStatus.APPROVED,
        author=f"{domain.tag}-leads@example.com",
    )
    return GeneratedGuidance(spec, domain, theme, obj, qualifier)


def function_text(spec: FunctionSpec) -> str:
    """What the index embeds and matches for a function (as `procedural.search.index_text`)."""
    return "\n".join(p for p in [spec.name, spec.signature, spec.docstring, " ".join(spec.tags)] if p)


def guidance_text(spec: GuidanceSpec) -> str:
    return "\n".join(p for p in [spec.title, spec.content, " ".join(spec.tags)] if p)


def _system_mention(domain: Domain, rng: random.Random) -> str:
    if rng.random() >= SYSTEM_MENTION_RATE:
        return ""
    return " " + rng.choice(SYSTEM_MENTION).format(system=domain.system)


def _queries(library: Library, count: int, rng: random.Random) -> list[Query]:
    linked_by: dict[str, list[str]] = defaultdict(list)
    for g in library.guidance:
        for fid in g.spec.function_ids:
            linked_by[fid].append(g.spec.guidance_id)
    n_guidance = min(len(library.guidance), count // 5)
    n_function = count - n_guidance
    out: list[Query] = []
    for f in rng.sample(library.functions, n_function):
        verb = rng.choice(f.verb.paraphrases)
        act = _verb_phrase(verb, rng.choice(f.obj.concept.paraphrases))
        qual = rng.choice(f.qualifier.paraphrases) if f.qualifier else ""
        templates = [t for t in FUNCTION_QUERY_TEMPLATES if qual or "{Qual}" not in t]
        template = rng.choice(templates)
        system = _system_mention(f.domain, rng)

        def render(act: str, template: str = template, qual: str = qual, system: str = system) -> str:
            text = template.format(act=act, qual=qual, Qual=_cap(qual))
            return " ".join(text.split()).replace(" ?", "?") + system

        relevant = {("function", f.spec.function_id)} | {
            ("guidance", g) for g in linked_by[f.spec.function_id]
        }
        out.append(
            Query(
                render(act),
                ("function", f.spec.function_id),
                frozenset(relevant),
                function_text(f.spec),
                f.spec.docstring,
                render(_verb_phrase(verb, f.obj.concept.canonical)),
            )
        )
    for g in rng.sample(library.guidance, n_guidance):
        template = rng.choice(GUIDANCE_QUERY_TEMPLATES[g.theme])
        values = {
            "obj": rng.choice(g.obj.concept.paraphrases) if g.obj else "",
            "qual": rng.choice(g.qualifier.paraphrases) if g.qualifier else "",
            "domain": rng.choice(g.domain.paraphrases),
        }
        system = _system_mention(g.domain, rng)
        named = {**values, "obj": g.obj.concept.canonical if g.obj else "", "domain": g.domain.tag}
        relevant = {("guidance", g.spec.guidance_id)} | {("function", fid) for fid in g.spec.function_ids}
        out.append(
            Query(
                " ".join((template.format(**values, Qual=_cap(values["qual"])) + system).split()),
                ("guidance", g.spec.guidance_id),
                frozenset(relevant),
                guidance_text(g.spec),
                g.spec.content,
                " ".join((template.format(**named, Qual=_cap(values["qual"])) + system).split()),
            )
        )
    rng.shuffle(out)
    return out


# -- word overlap ----------------------------------------------------------------------------------

# The keyword search's stop words, and the filler words of the query templates.
OVERLAP_STOP_WORDS = STOP_WORDS | {
    "can",
    "help",
    "task",
    "looking",
    "need",
    "want",
    "use",
    "should",
    "usual",
    "way",
}


def _stem(word: str) -> str:
    """A crude suffix strip, close to what FTS5's porter tokenizer would conflate."""
    for suffix, repl in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + repl
    return word


def content_words(text: str) -> set[str]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {_stem(w) for w in words if w not in OVERLAP_STOP_WORDS and len(w) > 1}


def word_overlap(query: str, target: str) -> float:
    """Share of the query's content words (stop words out, crudely stemmed) found in `target`."""
    q = content_words(query)
    return len(q & content_words(target)) / len(q) if q else 0.0
