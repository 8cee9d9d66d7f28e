import { billingApi, type LedgerEntry, type LedgerKind, type Payment } from '@shared/api/billing';
import { identityApi } from '@shared/api/identity';
import { Alert, App, Button, Card, DatePicker, Form, Input, Modal, Select, Space, Table, Tag, Typography } from 'antd';
import type { Dayjs } from 'dayjs';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useSearchParams } from 'react-router';
import { call, callForFile, saveBlob } from '../../api';
import { useReplica } from '../../data/replica-context';
import { failureText, useCall, useLoad, usePages } from '../../use-api';
import { formatMoney, parseRoubles } from './money';

const STATUS_COLOR: Record<Payment['status'], string> = {
  pending: 'gold',
  succeeded: 'green',
  canceled: 'default',
  refunded: 'purple',
};

function TopUpDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ amount: string }>();
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string>();
  const submit = async ({ amount }: { amount: string }) => {
    const kopecks = parseRoubles(amount) as number;
    setSending(true);
    setError(undefined);
    try {
      const payment = await call(billingApi.createPayment, {
        body: { amount: kopecks, currency: 'RUB' },
        headers: { 'Idempotency-Key': crypto.randomUUID() },
      });
      // The provider's page: the payer comes back to this page once they decided.
      if (payment.confirmationUrl) window.location.assign(payment.confirmationUrl);
    } catch (caught) {
      setError(failureText(caught, t));
      setSending(false);
    }
  };
  return (
    <Modal
      open={open}
      title={t('billing.dialogTitle')}
      okText={t('billing.pay')}
      cancelText={t('billing.cancel')}
      confirmLoading={sending}
      onOk={() => form.submit()}
      onCancel={onClose}
      destroyOnHidden
    >
      <Form form={form} layout="vertical" onFinish={submit} preserve={false}>
        <Form.Item
          name="amount"
          label={t('billing.amount')}
          rules={[
            {
              validator: (_, value: string | undefined) =>
                value && (parseRoubles(value) ?? 0) > 0
                  ? Promise.resolve()
                  : Promise.reject(t('billing.amountRequired')),
            },
          ]}
        >
          <Input inputMode="decimal" autoFocus placeholder="1000" />
        </Form.Item>
        {error && <Alert type="error" showIcon title={error} />}
      </Form>
    </Modal>
  );
}

function PaymentsCard({ language }: { language: string }) {
  const { t } = useTranslation();
  const payments = usePages(billingApi.listPayments, {}, 20);
  return (
    <Card title={t('billing.payments')}>
      <Table<Payment>
        size="small"
        rowKey="id"
        data-testid="payments"
        loading={payments.loading}
        dataSource={payments.items ?? []}
        pagination={false}
        locale={{ emptyText: t('billing.noPayments') }}
        columns={[
          {
            title: t('billing.date'),
            dataIndex: 'createdAt',
            render: (at: string) => new Date(at).toLocaleString(language),
          },
          {
            title: t('billing.sum'),
            dataIndex: 'amount',
            align: 'right',
            render: (amount: number, payment) => formatMoney(amount, payment.currency, language),
          },
          {
            title: t('billing.status'),
            dataIndex: 'status',
            render: (status: Payment['status']) => (
              <Tag color={STATUS_COLOR[status]}>{t(`billing.statusOf.${status}`)}</Tag>
            ),
          },
        ]}
      />
      {payments.nextCursor && <Button onClick={() => payments.more()}>{t('billing.more')}</Button>}
    </Card>
  );
}

function LedgerCard({ language }: { language: string }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [kind, setKind] = useState<LedgerKind>();
  const [range, setRange] = useState<[Dayjs | null, Dayjs | null] | null>(null);
  const filter = useMemo(
    () => ({
      ...(kind ? { kind } : {}),
      ...(range?.[0] ? { from: range[0].startOf('day').toISOString() } : {}),
      ...(range?.[1] ? { to: range[1].add(1, 'day').startOf('day').toISOString() } : {}),
    }),
    [kind, range],
  );
  const ledger = usePages(billingApi.listLedger, { query: filter }, 50);
  const exportCsv = async () => {
    try {
      saveBlob(await callForFile(billingApi.exportLedger, { query: filter }), 'ledger.csv');
    } catch (caught) {
      message.error(t('billing.failed', { reason: failureText(caught, t) }));
    }
  };
  return (
    <Card
      title={t('billing.ledger')}
      extra={
        <Space wrap>
          <Select<LedgerKind | 'all'>
            aria-label={t('billing.kind')}
            style={{ width: 170 }}
            value={kind ?? 'all'}
            onChange={(next) => setKind(next === 'all' ? undefined : next)}
            options={[
              { value: 'all', label: t('billing.allKinds') },
              ...(['payment', 'charge', 'adjustment'] as const).map((value) => ({
                value,
                label: t(`billing.kindOf.${value}`),
              })),
            ]}
          />
          <DatePicker.RangePicker value={range} onChange={(next) => setRange(next)} />
          <Button onClick={exportCsv}>{t('billing.export')}</Button>
        </Space>
      }
    >
      <Table<LedgerEntry>
        size="small"
        rowKey="id"
        data-testid="ledger"
        loading={ledger.loading}
        dataSource={ledger.items ?? []}
        pagination={false}
        locale={{ emptyText: t('billing.noEntries') }}
        columns={[
          {
            title: t('billing.date'),
            dataIndex: 'createdAt',
            render: (at: string) => new Date(at).toLocaleString(language),
          },
          { title: t('billing.kind'), dataIndex: 'kind', render: (value: LedgerKind) => t(`billing.kindOf.${value}`) },
          {
            title: t('billing.sum'),
            dataIndex: 'amount',
            align: 'right',
            render: (amount: number, entry) => formatMoney(amount, entry.currency, language),
          },
          {
            title: t('billing.balanceAfter'),
            dataIndex: 'balanceAfter',
            align: 'right',
            render: (amount: number, entry) => formatMoney(amount, entry.currency, language),
          },
          { title: t('billing.reason'), dataIndex: 'reason', render: (reason: string | null) => reason ?? '' },
        ]}
      />
      {ledger.nextCursor && <Button onClick={() => ledger.more()}>{t('billing.more')}</Button>}
    </Card>
  );
}

/** Finance: the balance and its block, top-ups through the provider, payments and the ledger. */
export function FinancePage() {
  const { t, i18n } = useTranslation();
  const language = i18n.language === 'en' ? 'en' : 'ru';
  const { me } = useReplica();
  const { message } = App.useApp();
  const [params, setParams] = useSearchParams();
  const [topUp, setTopUp] = useState(false);
  const balance = useCall(billingApi.getBalance, me?.modules.finance ? {} : undefined);
  const returned = params.get('payment');
  // Back from the provider's page: say how the payment ended, once.
  useEffect(() => {
    if (!returned) return;
    setParams({}, { replace: true });
    call(billingApi.getPayment, { params: { paymentId: returned } })
      .then((payment) =>
        message.info(
          t('billing.paymentDone', {
            amount: formatMoney(payment.amount, payment.currency, language),
            status: t(`billing.statusOf.${payment.status}`),
          }),
        ),
      )
      .catch(() => undefined);
  }, [returned, setParams, message, t, language]);
  if (me && !me.modules.finance) return <Alert type="info" showIcon title={t('billing.noAccess')} />;
  const data = balance.data;
  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Typography.Title level={2}>{t('billing.title')}</Typography.Title>
      {balance.error && <Alert type="error" showIcon title={balance.error} />}
      {data && (
        <Card>
          <Space orientation="vertical">
            <Typography.Text type="secondary">{t('billing.balance')}</Typography.Text>
            <Typography.Title level={3} data-testid="balance" style={{ margin: 0 }}>
              {formatMoney(data.balance, data.currency, language)}
            </Typography.Title>
            <Typography.Text type="secondary">
              {t('billing.threshold', { amount: formatMoney(data.threshold, data.currency, language) })}
            </Typography.Text>
            {data.billingBlocked && <Alert type="error" showIcon title={t('billing.blocked')} />}
            {data.provider ? (
              <Button type="primary" onClick={() => setTopUp(true)}>
                {t('billing.topUp')}
              </Button>
            ) : (
              <Alert type="warning" showIcon title={t('billing.noProvider')} />
            )}
          </Space>
        </Card>
      )}
      <TopUpDialog open={topUp} onClose={() => setTopUp(false)} />
      {me?.modules.finance && <PaymentsCard language={language} />}
      {me?.modules.finance && <LedgerCard language={language} />}
    </Space>
  );
}

/**
 * The banner every member sees while the organization is blocked for non-payment, with a link to
 * top up for those who have Finance access. The organization is read again on each page change.
 */
export function BillingBanner() {
  const { t } = useTranslation();
  const { me } = useReplica();
  const location = useLocation();
  const organization = useLoad(me ? location.pathname : undefined, () => call(identityApi.getOrganization));
  const blocked = organization.data?.billingBlocked ?? me?.organization.billingBlocked ?? false;
  if (!blocked || location.pathname === '/finance') return null;
  return (
    <Alert
      type="error"
      banner
      data-testid="billing-banner"
      title={t('billing.blockedBanner')}
      action={
        me?.modules.finance ? (
          <Link to="/finance">{t('billing.blockedBannerLink')}</Link>
        ) : (
          <Typography.Text>{t('billing.blockedBannerAsk')}</Typography.Text>
        )
      }
    />
  );
}
